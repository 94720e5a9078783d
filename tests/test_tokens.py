"""Chat tokens: what is signed, rotation of the secret, the lifetime cap, and hostile input."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from shopagent.domain.errors import Unauthorized
from shopagent.domain.tokens import issue_token, verify_token

OLD = "old-secret-old-secret-old-secret-0"
NEW = "new-secret-new-secret-new-secret-1"
NOW = 1_800_000_000


def test_the_version_is_part_of_what_is_signed():
    token = issue_token(NEW, "ana", 60, now=NOW)
    version, payload, signature = token.split(".")
    assert version == "v2"
    expected = base64.urlsafe_b64encode(hmac.new(NEW.encode(), f"v2.{payload}".encode(), hashlib.sha256).digest())
    assert signature == expected.rstrip(b"=").decode()
    with pytest.raises(Unauthorized, match="older format"):
        verify_token(NEW, f"v1.{payload}.{signature}", now=NOW)
    with pytest.raises(Unauthorized, match="malformed"):
        verify_token(NEW, f"v3.{payload}.{signature}", now=NOW)


def test_a_rotated_secret_signs_with_the_first_and_verifies_with_all():
    before = issue_token(OLD, "ana", 60, now=NOW)
    rotated = f"{NEW}, {OLD}"
    assert verify_token(rotated, before, now=NOW) == "ana"  # issued before the rotation: still valid
    after = issue_token(rotated, "bob", 60, now=NOW)
    assert verify_token(NEW, after, now=NOW) == "bob"  # signed with the new one
    with pytest.raises(Unauthorized, match="signature"):
        verify_token(OLD, after, now=NOW)
    with pytest.raises(Unauthorized, match="signature"):
        verify_token(NEW, before, now=NOW)  # once the old secret is dropped, its tokens end


def test_a_token_living_longer_than_allowed_is_refused():
    token = issue_token(NEW, "ana", 90 * 86_400, now=NOW)
    assert verify_token(NEW, token, now=NOW) == "ana"
    with pytest.raises(Unauthorized, match="lives longer than the 2592000s this shop allows"):
        verify_token(NEW, token, now=NOW, max_ttl_seconds=2_592_000)


@pytest.mark.parametrize("token", ["v2.abc.é", "v2.é.abc", "v2.\ud800.x", "v2..", "", "v2.a", "é.é.é"])
def test_hostile_tokens_are_unauthorized_never_an_error(token):
    with pytest.raises(Unauthorized):
        verify_token(NEW, token, now=NOW)
