"""``empathygraph chat``: typed turns, attachments, per-turn files, and resuming a session."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from empathygraph.cli import app
from empathygraph.cli import chat as cli_chat
from empathygraph.trace.replay import group_turns
from empathygraph.trace.store import read_trace
from tests.conftest import make_empathizer, test_config
from tests.observe.conftest import MEDIA

runner = CliRunner()


@pytest.fixture
def chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run ``chat`` with scripted agents over a SQLite session file, as a restart would see it."""
    config = test_config(sessions={"db": str(tmp_path / "sessions.sqlite")})
    monkeypatch.setattr(cli_chat, "Empathizer", lambda _config: make_empathizer(config=config))

    def talk(lines: list[str], *args: str) -> str:
        result = runner.invoke(app, ["chat", "--session", "s1", "--out", str(tmp_path / "chat"), "--no-media", *args],
                               input="\n".join(lines) + "\n")
        assert result.exit_code == 0, result.output
        assert "Traceback" not in result.output
        return result.output

    return talk


def test_chat_answers_each_turn_with_reading_and_strategy(chat, tmp_path: Path):
    out = chat(["My dog died yesterday and the house is so empty.", "I keep looking for him at the door.", "/quit"])
    assert out.count("listener:") == 2
    assert out.count("strategy: Reflection of feelings") == 2 and "reading: sad (sadness)" in out
    for turn in ("turn-1", "turn-2"):
        assert (tmp_path / "chat" / turn / "reply.json").is_file()
    records, problems = read_trace(tmp_path / "chat")
    assert problems == [] and [t.turn_index for t in group_turns(records)] == [0, 1]


def test_attachments_go_with_the_next_message_and_bad_ones_do_not_end_the_chat(chat, tmp_path: Path):
    out = chat(["/image /no/such/face.jpg", f"/image {MEDIA / 'sad_face.jpg'}", "/video", "/bogus",
                "My dog died yesterday.", "/history"])
    assert "no such file" in out and "/video needs a file path" in out and "unknown command /bogus" in out
    assert "attached image" in out and "looked at the face" in out
    records, _ = read_trace(tmp_path / "chat" / "turn-1" / "trace.jsonl")
    assert [r.input["path"] for r in records if r.step == "look"] == [str(MEDIA / "sad_face.jpg")]
    assert "1. you: My dog died yesterday." in out


def test_a_session_resumes_where_it_stopped(chat, tmp_path: Path):
    chat(["My dog died yesterday and the house is so empty."])
    out = chat(["/history", "I keep looking for him at the door."])
    assert "resuming, 1 earlier turn" in out
    assert "1. you: My dog died yesterday" in out
    assert (tmp_path / "chat" / "turn-2" / "reply.json").is_file()
    records, _ = read_trace(tmp_path / "chat")
    assert [t.turn_index for t in group_turns(records)] == [0, 1]


def test_a_message_cut_short_is_offered_again_and_finished_from_where_it_stopped(chat, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    from tests.conftest import scripted

    chat(["My dog died yesterday and the house is so empty."])

    def server_gone(messages, schema):
        raise ValueError("model unloaded")  # not transient: the turn fails at the response step

    config = test_config(sessions={"db": str(tmp_path / "sessions.sqlite")})
    failing = make_empathizer(scripted(ResponseDraft=server_gone), config=config)
    with monkeypatch.context() as patched:
        patched.setattr(cli_chat, "Empathizer", lambda _config: failing)
        out = chat(["I keep looking for him at the door."])
    assert "model unloaded" in out and "/resume tries that message again" in out
    out = " ".join(chat(["y", "/history"]).split())  # the console wraps long lines
    assert 'your last message was not answered (the listener stopped before replying): "I keep looking' in out
    assert "2. you: I keep looking for him at the door." in out
    assert (tmp_path / "chat" / "turn-2" / "reply.json").is_file()
    records, problems = read_trace(tmp_path / "chat")
    assert problems == [] and [t.turn_index for t in group_turns(records)] == [0, 1]
