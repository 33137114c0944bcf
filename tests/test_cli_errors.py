"""Bad input at the command line: one clear line, exit code 2, no traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from empathygraph.cli import app

runner = CliRunner()


def run_cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def scenario(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name: x\nturns:\n  - text: [unclosed\n", "not valid YAML"),
        ("name: x\nturns:\n  - text: ''\n", "empty turn"),
        ("name: x\nturns:\n  - text: hi\n    audio: missing.wav\n", "audio file not found"),
        ("name: x\nturns: []\n", "'turns'"),
        ("name: x\nturnz:\n  - text: hi\n", "turnz"),
    ],
)
def test_malformed_scenarios_are_named(tmp_path, content, message):
    code, output = run_cli("run", str(scenario(tmp_path, content)))
    assert code == 2
    assert message in output
    assert "Traceback" not in output


def test_missing_scenario_file():
    code, output = run_cli("run", "/nowhere/scenario.yaml")
    assert code == 2 and "scenario file not found" in output


def test_unknown_config_key(tmp_path):
    path = scenario(tmp_path, "name: x\nturns:\n  - text: hi\n")
    code, output = run_cli("run", str(path), "--set", "backbone.flavour=spicy")
    assert code == 2 and "unknown config key 'backbone.flavour'" in output


def test_unreachable_backend_is_named_within_ten_seconds(tmp_path):
    path = scenario(tmp_path, "name: x\nturns:\n  - text: hi\n")
    started = time.perf_counter()
    code, output = run_cli(
        "run", str(path), "--set", "backbone.kind=openai", "--set", "backbone.base_url=http://127.0.0.1:9/v1",
        "--set", "sessions.db=:memory:",
    )
    assert time.perf_counter() - started < 10
    assert code == 2
    assert "http://127.0.0.1:9/v1" in output and "unreachable" in output
