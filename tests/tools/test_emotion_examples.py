"""The labelled example bank the emotion fusion retrieves from."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.emotion_examples import ExampleBank, LabelledExample

VECTORS = {"my cat died": [1.0, 0.0], "I won the cup": [0.0, 1.0], "our dog died": [0.9, 0.1], "the cat is gone": [2.0, 0.2]}


class FakeEncoder:
    name = "fake-encoder"

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.array([VECTORS[t] for t in texts], dtype=np.float32)


def ed_file(tmp_path):
    records = [
        {"conv_id": "a", "emotion": "sad", "situation": "my cat died", "dialog": [{"speaker": "speaker", "text": "our dog died"}]},
        {"conv_id": "b", "emotion": "proud", "situation": "I won the cup", "dialog": []},
        {"conv_id": "c", "emotion": "not-a-label", "situation": "the cat is gone", "dialog": []},
    ]
    path = tmp_path / "ed.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_nearest_examples_come_closest_first_and_leave_out_excluded_conversations(tmp_path, monkeypatch):
    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path / "home"))
    bank = ExampleBank.from_ed(ed_file(tmp_path), FakeEncoder())
    assert bank.texts == ["my cat died", "our dog died", "I won the cup"]  # unknown labels are not examples
    assert bank.nearest(np.array([2.0, 0.0]), 2) == [LabelledExample("my cat died", "sad"),
                                                     LabelledExample("our dog died", "sad")]
    held_out = ExampleBank.from_ed(ed_file(tmp_path), FakeEncoder(), exclude={"a"})
    assert held_out.nearest(np.array([1.0, 0.0]), 5) == [LabelledExample("I won the cup", "proud")]


def test_a_bank_file_that_does_not_exist_is_refused_by_name(tmp_path):
    with pytest.raises(ValidationError, match="emotion_examples"):
        PerceptionConfig(emotion_examples=tmp_path / "missing.jsonl")
