"""`empathygraph eval` turns a bad dataset argument into one clear line and exit status 2."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from empathygraph.cli import app

runner = CliRunner()


def said(result) -> str:
    """The output with rich's line wrapping undone."""
    return " ".join(result.output.split())


def test_missing_file_is_one_line_exit_2(tmp_path):
    result = runner.invoke(app, ["eval", "--dataset", "ed", "--path", str(tmp_path / "absent.jsonl")])
    assert result.exit_code == 2 and "dataset file not found" in said(result)


def test_unknown_dataset_and_wrong_format(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"foo": 1}) + "\n")
    result = runner.invoke(app, ["eval", "--dataset", "imdb", "--path", str(path), "--systems", "classifier"])
    assert result.exit_code == 2 and "unknown dataset 'imdb'" in said(result)
    result = runner.invoke(app, ["eval", "--dataset", "ed", "--path", str(path), "--systems", "classifier",
                                 "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "no usable EmpatheticDialogues record" in said(result)
