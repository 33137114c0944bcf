"""Session stores: a conversation continues in another process, from a SQLite file or from PostgreSQL."""

from __future__ import annotations

import pytest

from empathygraph.errors import ConfigError
from empathygraph.graphs import postgres_sessions
from tests.conftest import make_empathizer, scripted, test_config, unique_session


def test_a_session_continues_in_another_process_and_keeps_its_turns(session_db: str):
    config = test_config(sessions={"db": session_db})
    session, other = unique_session("anna"), unique_session("ben")
    first = make_empathizer(config=config)
    first.respond("My dog died yesterday.", session_id=session)
    first.respond("A stranger's question.", session_id=other)
    first.close()

    model = scripted()
    second = make_empathizer(model, config)  # a new store connection, as a second process has
    result = second.respond("I still can't sleep.", session_id=session)
    assert result.turn_index == 1
    assert [h.user for h in second.history(session)] == ["My dog died yesterday.", "I still can't sleep."]
    assert "My dog died yesterday." in model.calls[0].prompt  # the history reached the agents
    assert "A stranger's question." not in model.calls[0].prompt
    assert second.history(unique_session("nobody")) == []
    second.close()


def test_postgres_url_is_not_read_as_a_file_path():
    url = "postgresql://someone@db.example:5432/sessions"
    assert test_config(sessions={"db": url}).session_db() == url


def test_an_unreachable_postgres_is_one_clear_error_without_the_password(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(postgres_sessions, "CONNECT_TIMEOUT_S", 1.0)
    config = test_config(sessions={"db": "postgresql://me:secret@127.0.0.1:9/none"})
    with pytest.raises(ConfigError, match=r"cannot connect to PostgreSQL at postgresql://me:\*\*\*@127\.0\.0\.1:9/none") as info:
        make_empathizer(config=config)
    assert "secret" not in str(info.value)
