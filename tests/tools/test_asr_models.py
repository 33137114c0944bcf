"""Locating packaged ASR models, and clear errors when weights are absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathygraph.errors import BackendError
from empathygraph.tools import asr


def test_split_model_pieces_are_joined_once_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    part1, part2 = tmp_path / "p1" / "data", tmp_path / "p2" / "data"
    part1.mkdir(parents=True), part2.mkdir(parents=True)
    (part1 / "model.bin.part1").write_bytes(b"abc")
    (part2 / "model.bin.part2").write_bytes(b"def")
    (part1 / "config.json").write_text("{}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    joined = asr._join_split_model("base", [part1.parent, part2.parent])
    assert (joined / "model.bin").read_bytes() == b"abcdef"
    assert (joined / "config.json").is_file()
    assert asr._join_split_model("base", [part1.parent, part2.parent]) == joined


def test_unknown_packaged_model_is_named() -> None:
    with pytest.raises(BackendError, match="unknown packaged ASR model 'huge'"):
        asr.packaged_model_dir("huge")


def test_openai_whisper_without_weights_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(BackendError, match="openai-whisper is not installed|weights for 'small' are absent"):
        asr.OpenAIWhisperRecognizer("small", language="en")


def test_text_emotion_is_none_when_its_tuned_top_is_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from empathygraph.tools import text_emotion
    from empathygraph.tools.toolbox import ToolBox

    monkeypatch.setattr(text_emotion, "EMOTION_TOP_PATH", tmp_path / "absent.npz")
    monkeypatch.setattr(text_emotion.TextEmotionClassifier.__init__, "__defaults__", (tmp_path / "absent.npz",))
    tools = ToolBox()
    assert tools.text_emotion("I am so happy today") is None
    assert "train_text_emotion.py" in tools.text_emotion_unavailable
