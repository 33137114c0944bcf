"""Loaders: every format loads, and bad records are named (file, line, field) and counted, never dropped silently."""

from __future__ import annotations

import json

import pytest

from empathygraph.eval.jsonfile import DatasetError
from empathygraph.eval.loaders import load_dataset
from empathygraph.schemas import Strategy

ED_OK = {"conv_id": "c1", "emotion": "sad", "situation": "s",
         "dialog": [{"speaker": "speaker", "text": "My dog died."}, {"speaker": "listener", "text": "So sorry."}]}


def test_ed_bad_records_are_counted_with_file_line_and_field(tmp_path):
    path = tmp_path / "ed.jsonl"
    rows = [ED_OK, {**ED_OK, "conv_id": "c2", "emotion": "melancholy"}, {"conv_id": "c3", "dialog": []}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    result = load_dataset("ed", path)
    assert [s.id for s in result.samples] == ["c1"] and result.records == 4
    assert result.samples[0].reference == "So sorry."
    problems = {(b.line, b.field) for b in result.bad}
    assert problems == {(2, "emotion"), (3, "emotion"), (4, "(line)")}
    assert all(b.file == str(path) for b in result.bad)
    assert "unknown label 'melancholy'" in str(result.bad[0])


def test_wrong_format_is_one_clear_error(tmp_path):
    path = tmp_path / "meld.csv"
    path.write_text("Sr No.,Utterance\n1,hello\n")
    with pytest.raises(DatasetError, match="no usable EmpatheticDialogues record"):
        load_dataset("ed", path)
    with pytest.raises(DatasetError, match="missing columns"):
        load_dataset("meld", path)
    with pytest.raises(DatasetError, match="not found"):
        load_dataset("esconv", tmp_path / "absent.jsonl")


def test_esconv_sample_per_reply_with_history_and_previous_strategy(tmp_path):
    conv = {"dialog": [
        {"speaker": "sys", "text": "Hi, how can I help?", "strategy": "Question"},
        {"speaker": "usr", "text": "I lost my job."},
        {"speaker": "usr", "text": "I feel useless."},
        {"speaker": "sys", "text": "That sounds really hard.", "strategy": "Reflection of feelings"},
        {"speaker": "usr", "text": "It is."},
        {"speaker": "sys", "text": "Have you talked to anyone?", "strategy": "Unknown strategy"},
    ]}
    path = tmp_path / "esconv.jsonl"
    path.write_text(json.dumps(conv) + "\n" + json.dumps(conv["dialog"][:4] and {"dialog": conv["dialog"][:4]}) + "\n")
    result = load_dataset("esconv", path)
    assert len(result.bad) == 1 and result.bad[0].field == "dialog[5].strategy" and result.bad[0].line == 1
    (sample,) = result.samples
    assert sample.text == "I lost my job. I feel useless." and sample.strategy is Strategy.REFLECTION
    assert [u.role for u in sample.history] == ["listener"] and sample.position == 1


def test_json_items_report_their_line(tmp_path):
    path = tmp_path / "reccon.json"
    good = [[{"turn": 1, "speaker": "A", "utterance": "I won the lottery!", "emotion": "happiness",
              "expanded emotion cause span": ["I won the lottery"]}]]
    bad = [[{"turn": 1, "speaker": "A", "utterance": "Hm.", "emotion": "bored"}]]
    path.write_text('{\n"d1": ' + json.dumps(good) + ',\n"d2": ' + json.dumps(bad) + "\n}")
    result = load_dataset("reccon", path)
    assert [s.causes for s in result.samples] == [["I won the lottery"]]
    assert result.bad[0].line == 3 and result.bad[0].field == "d2[0][0].emotion"


@pytest.mark.parametrize(
    ("name", "relative", "at_least"),
    [
        ("ed", "empathetic_dialogues/ed_valid.jsonl", 2700),
        ("esconv", "esconv/valid.jsonl", 2000),
        ("avamerg", "avamerg/annotated_samples.json", 40),
        ("avamerg", "avamerg/test_contexts.json", 6000),
        ("meld", "meld/dev_sent_emo.csv", 1100),
        ("reccon", "reccon/dailydialog_valid.json", 150),
    ],
)
def test_shared_files_load(shared_dir, name, relative, at_least):
    result = load_dataset(name, shared_dir / "data" / relative)
    assert len(result.samples) >= at_least
    assert len(result.bad) <= 0.3 * result.records
