"""The repository keeps the promises its README makes."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_the_readme_opens_with_the_demo_command_then_the_test_command():
    demo, tests = readme_commands()[:2]
    assert demo.endswith("shopagent demo")
    assert "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    readme_tests = readme_commands()[1]
    assert ci == readme_tests


def test_config_toml_holds_no_secret_values():
    text = (REPO / "config.toml").read_text()
    assert not re.search(r"^\s*(url|api_key|secret|password)\s*=", text, re.MULTILINE)
