"""Crash durability: a turn killed at any stage loses no finished turn, resumes, and leaves no half file."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathygraph.errors import BackendError, InputError
from empathygraph.files import append_text, is_partial, partial_path, writing
from tests.conftest import make_empathizer, scripted, test_config
from tests.reliability import crash

pytestmark = pytest.mark.timeout(300)


def unloaded(messages, schema):
    """A scripted answer that fails as a backend whose model went away."""
    raise ValueError("model unloaded")


@pytest.mark.parametrize("stage", crash.STAGES)
def test_a_turn_killed_at_any_stage_keeps_every_finished_turn_and_no_half_written_file(stage, tmp_path: Path):
    db, out = tmp_path / "sessions.sqlite", tmp_path / "chat"
    found = crash.crash(stage, db, out)
    if stage == "trace":  # the turn had finished: only the session trace's append was cut
        assert found.finished_turns == crash.MESSAGES and found.interrupted is None
    else:
        assert found.finished_turns == crash.MESSAGES[:2]
        assert found.interrupted == crash.MESSAGES[2]
    assert found.broken == [], found.broken  # no half-written file under a final name
    assert {f"turn-{n}/{name}" for n in (1, 2) for name in ("reply.json", "trace.jsonl", "reply.wav", "avatar.mp4")} \
        <= set(found.complete_files)
    if stage in ("tts", "video", "trace"):  # killed mid-write: the file it was writing stayed partial
        assert found.partial_files, found
    if found.interrupted is not None:  # the restarted process finishes the turn from its last finished step
        empathizer = make_empathizer(config=test_config(sessions={"db": str(db)}))
        result = empathizer.resume(crash.SESSION, out_dir=out / "turn-3")
        assert result.turn_index == 2 and result.reply
        assert [entry.user for entry in empathizer.history(crash.SESSION)] == crash.MESSAGES
        assert empathizer.interrupted(crash.SESSION) is None


def test_a_failed_turn_is_resumable_and_a_new_message_replaces_it():
    model = scripted()
    empathizer = make_empathizer(model)
    empathizer.respond("My dog died.", session_id="s")

    model.script["ResponseDraft"] = unloaded
    with pytest.raises(BackendError):
        empathizer.respond("I miss him.", session_id="s")
    assert empathizer.interrupted("s").text == "I miss him."
    calls = len(model.calls)
    model.script["ResponseDraft"] = {"reply": "Of course you miss him."}
    result = empathizer.resume("s")
    assert result.reply == "Of course you miss him." and result.turn_index == 1
    assert [c.schema_name for c in model.calls[calls:]] == ["ResponseDraft", "ReflectionDraft"]  # from where it stopped
    assert [s.step for s in result.steps][:2] == ["read", "perception"]  # the whole turn's trace
    model.script["ResponseDraft"] = unloaded
    with pytest.raises(BackendError):
        empathizer.respond("He was twelve.", session_id="s")
    model.script["ResponseDraft"] = {"reply": "Tell me about him."}
    empathizer.respond("Sorry, let me start again.", session_id="s")
    assert [h.user for h in empathizer.history("s")] == ["My dog died.", "I miss him.", "Sorry, let me start again."]
    with pytest.raises(InputError, match="no interrupted turn"):
        empathizer.resume("s")


def test_an_atomic_write_leaves_the_old_file_when_it_fails(tmp_path: Path):
    path = tmp_path / "reply.json"
    path.write_text("old")
    with pytest.raises(RuntimeError), writing(path) as partial:
        partial.write_text("half")
        raise RuntimeError("killed")
    assert path.read_text() == "old" and not partial_path(path).exists()
    append_text(path, "+new")
    assert path.read_text() == "old+new" and is_partial(partial_path(path)) and not is_partial(path)


def test_a_finished_turn_leaves_one_checkpoint_and_a_cut_one_keeps_its_steps(tmp_path: Path):
    import sqlite3

    db = tmp_path / "sessions.sqlite"
    model = scripted()
    empathizer = make_empathizer(model, test_config(sessions={"db": str(db)}))

    def rows() -> int:
        with sqlite3.connect(db) as connection:
            return connection.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = 's'").fetchone()[0]

    for text in ("My dog died.", "I miss him.", "He was twelve."):
        empathizer.respond(text, session_id="s")
        assert rows() == 1  # a session that runs for days does not keep a dozen states a turn

    model.script["ResponseDraft"] = unloaded
    with pytest.raises(BackendError):
        empathizer.respond("I keep his collar by the door.", session_id="s")
    assert rows() > 1 and empathizer.interrupted("s") is not None  # its finished steps stay for the resume
    model.script["ResponseDraft"] = {"reply": "That collar holds so much of him."}
    empathizer.resume("s")
    assert rows() == 1 and len(empathizer.history("s")) == 4


def test_with_checkpoints_per_turn_a_failed_turn_still_resumes_and_a_killed_one_is_lost(tmp_path: Path):
    model = scripted()
    empathizer = make_empathizer(model, test_config(sessions={"checkpoints": "turn"}))
    empathizer.respond("My dog died.", session_id="s")

    model.script["ResponseDraft"] = unloaded
    with pytest.raises(BackendError):
        empathizer.respond("I miss him.", session_id="s")
    assert empathizer.interrupted("s").text == "I miss him."  # saved as it failed
    db = tmp_path / "sessions.sqlite"
    found = crash.crash("response", db, tmp_path / "chat", config_overrides={"sessions": {"checkpoints": "turn"}})
    assert found.finished_turns == crash.MESSAGES[:2] and found.interrupted is None  # a kill saves nothing
