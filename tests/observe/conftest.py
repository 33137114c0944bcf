"""Traces to inspect: real turns of the graph with scripted models, written as trace.jsonl."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathygraph.session import TurnResult
from empathygraph.trace.records import StepRecord
from tests.conftest import REPO, make_empathizer, scripted

MEDIA = REPO / "examples" / "scenarios" / "media"
ACCEPT = {"verdict": "accept", "advice": ""}
REVISE = {"verdict": "revise", "advice": "name what they lost"}


def run_session(out: Path, texts: list[str], **script) -> list[TurnResult]:
    """Run turns of one session and write them as a run does: one trace for the session."""
    empathizer = make_empathizer(scripted(**script))
    results = []
    for text in texts:
        result = empathizer.respond(text, session_id="observed")
        result.write(out, append_trace=True)
        results.append(result)
    return results


def with_media(path: Path) -> None:
    """Add a generator step that wrote the example voice and video, as a rendered run would."""
    record = StepRecord(
        session_id="observed",
        turn_index=0,
        step="render:piper",
        kind="generator",
        latency_s=1.5,
        output={"files": {"audio": str(MEDIA / "sad_voice.wav"), "video": str(MEDIA / "sad_face.mp4")}},
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write(record.model_dump_json() + "\n")


@pytest.fixture
def session_trace(tmp_path: Path) -> Path:
    """A two-turn session whose second reply was sent back once by the reflection agent."""
    out = tmp_path / "run"
    texts = ["Yesterday my dog died and the house is empty.", "I still miss him at the door."]
    run_session(out, texts, ReflectionDraft=[ACCEPT, REVISE, ACCEPT])
    return out / "trace.jsonl"
