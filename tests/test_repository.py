"""The repository keeps the promises its README makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_the_readme_opens_with_the_demo_command_then_the_test_command():
    demo, tests = readme_commands()[:2]
    assert demo.endswith("shopagent demo")
    assert "pytest" in tests


def test_the_test_command_checks_the_import_rings_and_the_types_before_the_suite():
    steps = [step.strip() for step in readme_commands()[1].split("&&")]
    assert steps[-3:] == [".venv/bin/lint-imports", ".venv/bin/mypy", ".venv/bin/python -m pytest -n 2"]


def test_ci_runs_exactly_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    readme_tests = readme_commands()[1]
    assert ci == readme_tests


def test_config_toml_holds_no_secret_values():
    text = (REPO / "config.toml").read_text()
    assert not re.search(r"^\s*(url|api_key|secret|password)\s*=", text, re.MULTILINE)


# Imports point inward only (see the README's layout): each ring may import these rings.
ALLOWED = {
    "domain": {"domain"},
    "application": {"application", "domain"},
    "adapters": {"adapters", "application", "domain"},
    "entrypoints": {"entrypoints", "application", "domain"},
    "actors": {"actors", "entrypoints", "adapters", "application", "domain", "runtime", "settings"},
    "runtime": {"runtime"},
}
# Single modules an inner ring may use besides: retry timing is shared by the model adapters
# and the outbox's retry schedule, and imports nothing of ours.
ALLOWED_MODULES = {
    "application": {"shopagent.runtime.retry"},
    "adapters": {"shopagent.runtime.retry"},
}


def shopagent_imports(path: Path) -> set[str]:
    import ast

    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n for n in names if n == "shopagent" or n.startswith("shopagent.")}


def test_imports_point_inward_only():
    violations = []
    for ring, allowed in ALLOWED.items():
        for path in (REPO / "shopagent" / ring).rglob("*.py"):
            for module in shopagent_imports(path):
                parts = module.split(".")
                target = parts[1] if len(parts) > 1 else None
                if module in ALLOWED_MODULES.get(ring, set()):
                    continue
                if target is not None and target != "__init__" and target not in allowed:
                    violations.append(f"{path.relative_to(REPO)} imports {module}")
    assert violations == []


@pytest.mark.process
def test_the_code_is_formatted_and_lint_clean():
    import subprocess
    import sys

    for args in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
