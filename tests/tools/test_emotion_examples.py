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


def test_a_reply_bank_reads_pairs_and_ed_conversations_and_returns_replies(tmp_path, monkeypatch):
    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path / "home"))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"text": "my cat died", "reply": "Oh no, how old was she?"}) + "\n"
                     + json.dumps({"text": "I won the cup", "reply": "Champion! Who did you beat?"}) + "\n")
    bank = ExampleBank.from_replies(pairs, FakeEncoder())
    assert bank.nearest(np.array([0.1, 1.0]), 1) == [LabelledExample("I won the cup", "Champion! Who did you beat?")]
    ed = tmp_path / "ed.jsonl"
    ed.write_text(json.dumps({"conv_id": "a", "emotion": "sad", "dialog": [
        {"speaker": "speaker", "text": "our dog died"}, {"speaker": "listener", "text": "I'm so sorry."}]}) + "\n"
        + json.dumps({"conv_id": "b", "emotion": "sad", "dialog": [{"speaker": "speaker", "text": "the cat is gone"}]}) + "\n")
    from_ed = ExampleBank.from_replies(ed, FakeEncoder())
    assert from_ed.texts == ["our dog died"] and from_ed.labels == ["I'm so sorry."]  # no reply, no example
    assert ExampleBank.from_replies(ed, FakeEncoder(), exclude={"b"}).texts == ["our dog died"]


def test_the_shipped_reply_bank_is_well_formed_and_off_by_default():
    from empathygraph.tools.config import REPLY_EXAMPLES
    from empathygraph.tools.emotion_examples import reply_pairs

    assert PerceptionConfig().reply_examples is None  # the 1.5B model copied the examples' details
    texts, replies, _ = reply_pairs(REPLY_EXAMPLES)
    assert len(texts) == len(replies) >= 100
    # Its replies are of the register asked for: none opens with "I understand / I see / I hear".
    assert not [r for r in replies if r.lower().startswith(("i understand", "i see", "i hear"))]
