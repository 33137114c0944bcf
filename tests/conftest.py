"""Shared fixtures: scripted backbones, in-memory sessions, the shared data folder."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from empathygraph import Config, Empathizer
from empathygraph.backbones import ScriptedChatModel, wrap_chat_model

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# One plausible answer per agent schema; tests override what they examine.
DEFAULT_SCRIPT: dict[str, Any] = {
    "PerceptionDraft": {"reading": "They sound tired and sad."},
    "LabelledCauseDraft": {
        "scenario": "their dog died",
        "emotion": "sad",
        "quote": "my dog died",
        "intensity": "high",
    },
    "CauseDraft": {"scenario": "their dog died", "quote": "my dog died", "intensity": "high"},
    "StrategyDraft": {"goal": "comfort them", "strategy": "Reflection of feelings"},
    "GoalDraft": {"goal": "comfort them"},
    "ResponseDraft": {"reply": "I'm so sorry your dog died. The house must feel so quiet without him."},
    "FollowUpQuestion": {"question": "What was his name?"},
    "ReflectionDraft": {"verdict": "accept", "advice": ""},
    "AcknowledgmentDraft": {"acknowledgment": "That sounds like so much pain to carry on your own."},
}


def scripted(**overrides: Any) -> ScriptedChatModel:
    """A scripted chat model: the default script with some answers replaced."""
    return ScriptedChatModel(script={**DEFAULT_SCRIPT, **overrides})


class SlowWriter(ScriptedChatModel):
    """A scripted model that writes at an LLM's pace (each word of a streamed answer takes ``seconds_per_word``)."""

    seconds_per_word: float = 0.05

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for chunk in super()._stream(*args, **kwargs):
            time.sleep(self.seconds_per_word)
            yield chunk


def test_config(**sections: Any) -> Config:
    """A config for unit tests: in-memory sessions, no media, no model downloads."""
    data: dict[str, Any] = {
        "sessions": {"db": ":memory:"},
        # The scripts copy their cause quotes freely (the default picks one of the message's clauses: test_quotes.py).
        "agents": {"strategy_label": "llm", "reflection_llm": "always", "cause_quote": "free"},
        "perception": {"text_emotion": False},
        "safety": {"classifier": False, "acknowledgment": "llm"},  # the LLM path is the one with rules to test
        "generators": {"speech": "none", "avatar": "none"},
    }
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value}
    return Config.model_validate(data)


test_config.__test__ = False  # not a test, despite the name


def make_empathizer(model: ScriptedChatModel | None = None, config: Config | None = None, **kwargs: Any) -> Empathizer:
    return Empathizer(config or test_config(), backbone=wrap_chat_model(model or scripted()), **kwargs)


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


# A PostgreSQL database the session tests may use (CI: scripts/postgres_test_server.sh); they skip without it.
POSTGRES_URL_ENV = "EMPATHYGRAPH_TEST_POSTGRES_URL"


@pytest.fixture(params=["sqlite", "postgresql"])
def session_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A session store of each kind: a SQLite file, and the test PostgreSQL database when there is one."""
    if request.param == "sqlite":
        return str(tmp_path / "sessions.sqlite")
    url = os.environ.get(POSTGRES_URL_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL for the session tests (set {POSTGRES_URL_ENV}; scripts/postgres_test_server.sh)")
    return url


def unique_session(name: str) -> str:
    """A session id no earlier test run used (a PostgreSQL database outlives a test)."""
    return f"{name}-{uuid.uuid4().hex[:12]}"
