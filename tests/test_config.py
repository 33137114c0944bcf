"""Configuration: files, environment and --set overrides, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathygraph.config import Config, load_config
from empathygraph.errors import ConfigError
from tests.conftest import REPO


def test_shipped_default_yaml_matches_the_built_in_defaults():
    assert load_config(REPO / "configs" / "default.yaml", environ={}) == Config()


@pytest.mark.parametrize("name", ["default.yaml", "fast.yaml", "vllm.yaml"])
def test_every_shipped_config_loads(name):
    load_config(REPO / "configs" / name, environ={})


def test_precedence_is_file_then_environment_then_overrides(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("backbone: {model: from-file, temperature: 0.5}\nagents: {reflection_rounds: 2}\n")
    env = {"EMPATHYGRAPH_BACKBONE__MODEL": "from-env", "EMPATHYGRAPH_AGENTS__REFLECTION_ROUNDS": "3"}
    config = load_config(path, ["agents.reflection_rounds=0"], environ=env)
    assert config.backbone.model == "from-env"
    assert config.backbone.temperature == 0.5
    assert config.agents.reflection_rounds == 0


def test_unknown_key_is_named(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("backbone: {modle: x}\n")
    with pytest.raises(ConfigError, match=r"unknown config key 'backbone.modle'"):
        load_config(path, environ={})


def test_bad_value_is_named():
    with pytest.raises(ConfigError, match=r"'agents.reflection_rounds'"):
        load_config(overrides=["agents.reflection_rounds=-1"], environ={})


@pytest.mark.parametrize(
    ("content", "message"),
    [("backbone: [unclosed", "not valid YAML"), ("- a list\n", "expected a mapping")],
)
def test_broken_files_are_named(tmp_path: Path, content, message):
    path = tmp_path / "c.yaml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_config(path, environ={})


def test_missing_file_and_malformed_override():
    with pytest.raises(ConfigError, match="config file not found"):
        load_config("/nonexistent.yaml", environ={})
    with pytest.raises(ConfigError, match="key=value"):
        load_config(overrides=["backbone.model"], environ={})


def test_server_requests_carry_the_thinking_switch_and_a_repetition_penalty_when_set():
    from empathygraph.backbones.openai_server import request_extras
    from empathygraph.config import BackboneConfig

    assert request_extras(BackboneConfig(kind="openai")) == {"chat_template_kwargs": {"enable_thinking": False}}
    assert request_extras(BackboneConfig(kind="openai", thinking=None, repeat_penalty=1.15)) == {
        "repetition_penalty": 1.15}
