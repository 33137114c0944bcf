"""Bad trace files: each problem names its line; whatever is readable is still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathygraph.trace.records import TRACE_VERSION
from empathygraph.trace.replay import group_turns
from empathygraph.trace.store import TraceError, read_trace


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_a_session_trace_reads_back_as_its_turns(session_trace: Path):
    records, problems = read_trace(session_trace)
    assert problems == []
    turns = group_turns(records)
    assert [t.turn_index for t in turns] == [0, 1]
    assert turns[0].user_text.startswith("Yesterday my dog died")
    assert [s.round for s in turns[1].steps if s.step == "response"] == [0, 1]
    assert turns[1].reply == turns[1].last("response").output["text"]


def test_run_folder_resolves_to_its_trace(session_trace: Path):
    assert read_trace(session_trace.parent)[0] == read_trace(session_trace)[0]


def test_truncated_last_line_is_named_and_the_rest_is_read(session_trace: Path):
    text = lines(session_trace)
    session_trace.write_text("\n".join(text[:-1] + [text[-1][:57]]))
    records, problems = read_trace(session_trace)
    assert len(records) == len(text) - 1
    assert problems == [f"{session_trace}:{len(text)}: not JSON: " + problems[0].split("not JSON: ")[1]]
    assert "cut off" in problems[0]


def test_hand_edited_field_names_line_and_field(session_trace: Path):
    text = lines(session_trace)
    record = json.loads(text[2])
    record["latency_s"] = "fast"
    text[2] = json.dumps(record)
    session_trace.write_text("\n".join(text))
    _, problems = read_trace(session_trace)
    assert len(problems) == 1
    assert problems[0].startswith(f"{session_trace}:3: field 'latency_s'")


@pytest.mark.parametrize(
    ("version", "says"),
    [(0, "older empathygraph"), (TRACE_VERSION + 1, "newer than this empathygraph reads"), (None, "no integer 'version'")],
)
def test_other_versions_are_named_by_line(session_trace: Path, version: int | None, says: str):
    text = lines(session_trace)
    record = json.loads(text[0])
    record["version"] = version
    text[0] = json.dumps(record)
    session_trace.write_text("\n".join(text))
    records, problems = read_trace(session_trace)
    assert len(records) == len(text) - 1
    assert problems[0].startswith(f"{session_trace}:1: ") and says in problems[0]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "empty trace"),
        (b"name: grief\nturns: []\n", "is not a trace: no line is a step record"),
        (bytes(range(256)) * 4, "is not a trace"),
        (b'["a", "list"]\n', "a JSON list"),
    ],
)
def test_a_file_that_is_not_a_trace_is_an_error(tmp_path: Path, content: bytes, says: str):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(TraceError, match=says.replace("(", r"\(")):
        read_trace(path)


def test_missing_path_and_folder_without_trace(tmp_path: Path):
    with pytest.raises(TraceError, match="trace not found"):
        read_trace(tmp_path / "nope.jsonl")
    with pytest.raises(TraceError, match="a folder without a trace.jsonl"):
        read_trace(tmp_path)
