"""Many sessions at once on one SQLite store: no "database is locked", no cross-talk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.many_sessions import check_store, run_many, run_worker, session_names

pytestmark = pytest.mark.timeout(300)


def test_threads_sharing_one_empathizer_keep_their_sessions_apart(tmp_path: Path):
    db = str(tmp_path / "sessions.sqlite")
    assert run_worker(db, worker=0, sessions=8, turns=3) == []
    assert check_store(db, session_names(0, 8), turns=3) == []


def test_processes_and_threads_on_one_store_lose_nothing_and_never_cross(tmp_path: Path):
    outcome = run_many(tmp_path / "sessions.sqlite", processes=3, sessions=4, turns=3)
    assert outcome.errors == []  # no "database is locked", nothing else either
    assert outcome.cross_talk == []
    assert outcome.sessions == 12 and outcome.turns == 36


def test_the_check_catches_a_reply_about_another_sessions_message(tmp_path: Path):
    from empathygraph import Empathizer
    from empathygraph.backbones import wrap_chat_model
    from tests.conftest import scripted, test_config
    from tests.reliability.many_sessions import message

    db = str(tmp_path / "sessions.sqlite")
    crossed = scripted(ResponseDraft={"reply": "That is a lot to carry [w0s1:t0]."})  # answers someone else
    Empathizer(test_config(sessions={"db": db}), backbone=wrap_chat_model(crossed)).respond(
        message("w0s0", 0), session_id="w0s0")
    assert check_store(db, ["w0s0"], turns=1) == ["w0s0 turn 0: reply about another message: 'That is a lot to carry [w0s1:t0].'"]
