"""benchmarks/human_phrasing.py counts human listeners' first replies per label, by a pattern or a reply check."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO


def conversation(label: str, speaker: str, listener: str) -> str:
    return json.dumps({"conv_id": label + speaker[:5], "emotion": label, "situation": speaker,
                       "dialog": [{"speaker": "speaker", "text": speaker}, {"speaker": "listener", "text": listener}]})


def count(tmp_path, *args: str) -> dict:
    (tmp_path / "ed_train.jsonl").write_text("\n".join([
        conversation("sad", "My dog died.", "Oh, that's so sad."),
        conversation("sad", "My cat is ill.", "I'm sorry. Is she at the vet?"),
        conversation("furious", "My roommate ate my cake.", "That's so sad!"),
        conversation("furious", "Someone keyed my car.", "What a jerk. Did you call the police?"),
    ]) + "\n")
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "human_phrasing.py"), *args, "--splits", "train",
                           "--data", str(tmp_path)], capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout)


def test_a_pattern_is_counted_per_label_and_coarse_group(tmp_path):
    found = count(tmp_path, "--pattern", r"\bthat'?s\s+so\s+sad\b")
    assert found["conversations"] == 4 and found["matched"] == 2
    assert found["by_label"]["sad"] == {"conversations": 2, "matched": 1, "share": 0.5}
    assert found["by_coarse"]["anger"]["matched"] == 1


def test_a_reply_check_reads_the_label_as_the_feeling_read(tmp_path):
    found = count(tmp_path, "--check", "calls_it_sad")
    assert found["by_label"]["sad"]["matched"] == 0, "sadness answered as sad is fine"
    assert found["by_label"]["furious"]["matched"] == 1
    assert [example["listener"] for example in found["examples"]] == ["That's so sad!"]
