from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shopagent.domain.errors import ConfigError
from shopagent.runtime.logging import Scrubber
from shopagent.settings import Secret, Settings, describe, load_settings, resolve_data_dir

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_the_shipped_config_file_documents_exactly_the_defaults():
    assert load_settings(REPO / "config.toml", environ={}) == Settings()


def test_the_shipped_config_file_lists_every_setting():
    import tomllib

    import msgspec

    text = (REPO / "config.toml").read_text()
    written = tomllib.loads(text)
    for section in msgspec.structs.fields(Settings):
        if section.name == "secrets":  # environment only
            continue
        for field in msgspec.structs.fields(section.type):
            if field.default is None:  # TOML has no null: shown commented out
                assert f"# {field.encode_name} = " in text, f"{section.name}.{field.encode_name}"
            else:
                assert field.encode_name in written.get(section.name, {}), f"{section.name}.{field.encode_name}"


def test_no_file_and_no_environment_gives_the_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_settings(environ={}) == Settings()


def test_a_file_value_overrides_the_default(tmp_path):
    settings = load_settings(write(tmp_path, "[http]\nport = 8181\n"), environ={})
    assert settings.http.port == 8181
    assert settings.mcp.port == Settings().mcp.port


def test_settings_beneath_the_config_file_give_way_to_it_and_to_the_environment_key_by_key(tmp_path):
    beneath = tmp_path / "sample.toml"
    beneath.write_text(
        '[store]\nname = "Sample Shop"\ncontact = "hello@sample.example"\n'
        '[catalog]\nsizes = []\ncolors = ["black", "copper"]\n[http]\nport = 8111\n'
    )
    mine = write(tmp_path, '[store]\nname = "My Shop"\n[catalog]\ncolors = ["red"]\n[http]\nport = 8080\n')
    settings = load_settings(mine, environ={"SHOPAGENT_CATALOG__SIZES": '["S"]'}, beneath=beneath)
    assert settings.store.name == "My Shop"  # the file's own value
    assert settings.store.contact == "hello@sample.example"  # a table merged key by key
    assert settings.catalog.colors == ["red"]  # a list replaced whole
    assert settings.catalog.sizes == ["S"]  # the environment over both
    assert settings.http.port == 8111  # a file value left at its default counts as not set


def test_the_shipped_config_file_leaves_the_coffee_samples_settings_in_place():
    from shopagent.sample_data import SAMPLES

    settings = load_settings(REPO / "config.toml", environ={}, beneath=SAMPLES["coffee"].settings)
    assert settings.store.name == "Shopagent Demo Roastery"
    assert settings.catalog.sizes == [] and "copper" in settings.catalog.colors
    assert settings.catalog.spec_units["capacity_ml"] == "ml"
    assert settings.store.product_url_template == "https://roastery.example/products/{slug}"
    assert settings.http == Settings().http


def test_an_unknown_key_is_an_error_naming_its_path(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown setting `http\.prot`"):
        load_settings(write(tmp_path, "[http]\nprot = 8181\n"), environ={})


def test_an_unknown_section_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="unknown setting `htp`"):
        load_settings(write(tmp_path, "[htp]\nport = 1\n"), environ={})


def test_a_wrongly_typed_value_is_an_error_naming_its_path(tmp_path):
    with pytest.raises(ConfigError, match=r"`http\.port`: Expected `int`, got `str`"):
        load_settings(write(tmp_path, '[http]\nport = "80"\n'), environ={})


def test_an_out_of_range_value_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match=r"`ops\.port`: Expected `int` <= 65535"):
        load_settings(write(tmp_path, "[ops]\nport = 70000\n"), environ={})


def test_malformed_toml_is_an_error_naming_the_file(tmp_path):
    path = write(tmp_path, "[http\nport = 1\n")
    with pytest.raises(ConfigError, match=f"{path}: not valid TOML"):
        load_settings(path, environ={})


def test_a_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml", environ={})


def test_the_environment_overrides_the_file_with_converted_values(tmp_path):
    path = write(tmp_path, "[http]\nport = 8181\n")
    env = {
        "SHOPAGENT_HTTP__PORT": "9191",
        "SHOPAGENT_LOGGING__ACCESS_LOG": "true",
        "SHOPAGENT_INDEXER__WORKERS": "4",
    }
    settings = load_settings(path, environ=env)
    assert settings.http.port == 9191
    assert settings.logging.access_log is True
    assert settings.indexer.workers == 4


def test_data_dir_shortcut(tmp_path):
    settings = load_settings(environ={"SHOPAGENT_DATA_DIR": str(tmp_path)})
    assert resolve_data_dir(settings) == tmp_path


def test_config_path_from_the_environment(tmp_path):
    path = write(tmp_path, "[store]\nname = 'Boots & Co'\n")
    assert load_settings(environ={"SHOPAGENT_CONFIG": str(path)}).store.name == "Boots & Co"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("SHOPAGENT_HTTP__PORT", "eighty", r"SHOPAGENT_HTTP__PORT='eighty': Expected `int`"),
        ("SHOPAGENT_HTTP__PROT", "1", r"SHOPAGENT_HTTP__PROT: unknown setting `http\.prot`"),
        ("SHOPAGENT_NOPE__PORT", "1", r"unknown settings section `nope`"),
        ("SHOPAGENT_LOGGING__LEVEL", "loud", r"Invalid enum value 'loud'"),
        ("SHOPAGENT_DATABSE_URL", "postgres://x", r"unknown environment variable SHOPAGENT_DATABSE_URL"),
        ("SHOPAGENT_SECRETS__AUTH_SECRET", "x", r"unknown settings section `secrets`"),
    ],
)
def test_bad_environment_overrides_are_errors_naming_the_variable(variable, value, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(environ={variable: value})


@pytest.mark.parametrize(
    ("text", "variable"),
    [
        ("[database]\nurl = 'postgresql://u:p@h/db'\n", "SHOPAGENT_DATABASE_URL"),
        ("[mcp]\napi_key = 'k'\n", "SHOPAGENT_MCP_API_KEY"),
        ("[secrets]\nauth_secret = 's'\n", "SHOPAGENT_AUTH_SECRET"),
    ],
)
def test_secrets_in_the_file_are_refused_with_the_variable_to_use(tmp_path, text, variable):
    with pytest.raises(ConfigError, match=variable):
        load_settings(write(tmp_path, text), environ={})


def test_secrets_come_from_the_environment_and_never_show():
    env = {"SHOPAGENT_DATABASE_URL": "postgresql://shop:hunter2hunter2@db/shop", "GEMINI_API_KEY": "g-123456"}
    settings = load_settings(environ=env)
    assert settings.secrets.database_url == Secret("postgresql://shop:hunter2hunter2@db/shop")
    assert settings.secrets.gemini_api_key is not None
    assert settings.secrets.gemini_api_key.reveal() == "g-123456"
    assert settings.secrets.mcp_api_key is None
    shown = repr(settings) + str(describe(settings))
    assert "hunter2" not in shown
    assert "g-123456" not in shown
    assert describe(settings)["secrets"]["database_url"] == "***"


def test_the_log_scrubber_hides_every_configured_secret():
    scrub = Scrubber(["hunter2hunter2", "g-123456"])
    assert scrub("login failed for hunter2hunter2 with g-123456") == "login failed for *** with ***"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shopagent", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


@pytest.mark.process
def test_cli_unknown_role_is_a_one_line_usage_error(tmp_path):
    result = run_cli("run", "--role", "nonsense", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "shopagent: error: unknown role 'nonsense'; valid roles: all, chat, mcp, indexer, reaper"
    ]


@pytest.mark.process
def test_cli_malformed_config_is_a_one_line_error_without_traceback(tmp_path):
    (tmp_path / "config.toml").write_text("[http]\nport = = 1\n")
    result = run_cli("run", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("shopagent: error: config.toml: not valid TOML")
    assert "Traceback" not in result.stderr


@pytest.mark.process
def test_cli_help_explains_each_command(tmp_path):
    for command in ("run", "demo", "migrate"):
        result = run_cli(command, "--help", cwd=tmp_path)
        assert result.returncode == 0
        assert "--config" in result.stdout
    assert "--role" in run_cli("run", "--help", cwd=tmp_path).stdout
