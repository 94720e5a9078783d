"""The `VectorIndexAdmin` port's contract, run against every implementation (tests/index_backends.py)."""

from __future__ import annotations

import pytest

from shopagent.application.ports import IndexBuild, VectorIndexSpec, VectorIndexState

pytestmark = pytest.mark.anyio
MODEL = "hash-384"
NOT_READY = VectorIndexState(ready=False, settings=None)


async def test_a_model_without_an_index_is_not_ready(index_backend):
    assert await index_backend.vector_index.state(MODEL) == NOT_READY


async def test_a_built_index_is_ready_with_its_settings_and_is_built_once(index_backend):
    index = index_backend.vector_index
    spec = VectorIndexSpec(m=8, ef_construction=24)
    assert await index.build(MODEL, 384, spec) is IndexBuild.BUILT
    assert await index.state(MODEL) == VectorIndexState(ready=True, settings="m=8, ef_construction=24")
    assert await index.build(MODEL, 384, VectorIndexSpec()) is IndexBuild.EXISTED
    assert (await index.state(MODEL)).settings == spec.describe()  # not rebuilt with other settings
    assert await index.state("other-384") == NOT_READY  # one index per model


async def test_dropping_removes_the_index_and_says_whether_there_was_one(index_backend):
    index = index_backend.vector_index
    assert not await index.drop(MODEL)
    await index.build(MODEL, 384, VectorIndexSpec())
    assert await index.drop(MODEL)
    assert await index.state(MODEL) == NOT_READY
    assert not await index.drop(MODEL)
    assert await index.build(MODEL, 384, VectorIndexSpec()) is IndexBuild.BUILT


async def test_a_build_going_on_elsewhere_is_not_duplicated(index_backend):
    index = index_backend.vector_index
    async with index_backend.building_elsewhere():
        assert await index.build(MODEL, 384, VectorIndexSpec()) is IndexBuild.BUSY
        assert await index.state(MODEL) == NOT_READY
    assert await index.build(MODEL, 384, VectorIndexSpec()) is IndexBuild.BUILT


async def test_a_build_that_fails_raises_and_leaves_no_index_behind(index_backend):
    index = index_backend.vector_index
    with pytest.raises(Exception, match="ef_construction"):  # pgvector wants ef_construction >= 2 * m
        await index.build(MODEL, 384, VectorIndexSpec(m=40, ef_construction=64))
    assert await index.state(MODEL) == NOT_READY
    assert not await index.drop(MODEL)
    assert await index.build(MODEL, 384, VectorIndexSpec()) is IndexBuild.BUILT
