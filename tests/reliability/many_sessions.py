"""Many sessions at once against one SQLite store: processes, each running sessions on threads.

Every message carries a tag naming its session and turn, and the scripted listener echoes the
tag of the message it was given, so a reply or history entry that lands in the wrong session
(cross-talk) is visible. The unit tests and ``benchmarks/reliability.py`` both use it.
"""

from __future__ import annotations

import multiprocessing
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.messages import BaseMessage

TAG = re.compile(r"\[(w\d+s\d+):t(\d+)\]")


def message(session: str, turn: int) -> str:
    return f"My dog died last week [{session}:t{turn}] and the house is so quiet."


def _echo(messages: list[BaseMessage], schema: str | None) -> dict[str, str]:
    """A reply naming the tag of the message the prompt is about (the last 'now says' line)."""
    prompt = "\n".join(str(m.content) for m in messages)
    said = prompt.rsplit("The person now says:", 1)[-1]
    tag = TAG.search(said)
    label = f"[{tag.group(1)}:t{tag.group(2)}]" if tag else "[none]"
    return {"reply": f"Thank you for telling me {label}. That sounds so hard."}


def session_names(worker: int, sessions: int) -> list[str]:
    return [f"w{worker}s{index}" for index in range(sessions)]


def run_worker(db: str, worker: int, sessions: int, turns: int) -> list[str]:
    """One process: ``sessions`` sessions on as many threads sharing one Empathizer; the errors seen."""
    from empathygraph import Empathizer
    from empathygraph.backbones import wrap_chat_model
    from tests.conftest import scripted, test_config

    model = scripted(ResponseDraft=_echo)
    empathizer = Empathizer(test_config(sessions={"db": db}), backbone=wrap_chat_model(model))

    def talk(session: str) -> list[str]:
        errors = []
        for turn in range(turns):
            try:
                empathizer.respond(message(session, turn), session_id=session)
            except Exception as exc:  # noqa: BLE001 - what the test counts: any failure at all
                errors.append(f"{session} turn {turn}: {type(exc).__name__}: {exc}")
        return errors

    with ThreadPoolExecutor(max_workers=sessions) as pool:
        return [error for found in pool.map(talk, session_names(worker, sessions)) for error in found]


@dataclass
class Outcome:
    """What many sessions at once left in the store."""

    sessions: int
    turns: int
    errors: list[str] = field(default_factory=list)
    cross_talk: list[str] = field(default_factory=list)


def check_store(db: str, names: list[str], turns: int) -> list[str]:
    """Every session's history must hold exactly its own turns, in order, each answered about itself."""
    from empathygraph import Empathizer
    from empathygraph.backbones import wrap_chat_model
    from tests.conftest import scripted, test_config

    empathizer = Empathizer(test_config(sessions={"db": db}), backbone=wrap_chat_model(scripted()))
    wrong = []
    for session in names:
        history = empathizer.history(session)
        users = [entry.user for entry in history]
        if users != [message(session, turn) for turn in range(turns)]:
            wrong.append(f"{session}: holds {len(users)} turns, not its own {turns}: {users[:3]}")
        for turn, entry in enumerate(history):
            if f"[{session}:t{turn}]" not in entry.reply:
                wrong.append(f"{session} turn {turn}: reply about another message: {entry.reply!r}")
    return wrong


def run_many(db: Path, processes: int, sessions: int, turns: int) -> Outcome:
    """``processes`` processes x ``sessions`` threads, each session ``turns`` turns, one store."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes) as pool:
        found = pool.starmap(run_worker, [(str(db), worker, sessions, turns) for worker in range(processes)])
    names = [name for worker in range(processes) for name in session_names(worker, sessions)]
    outcome = Outcome(sessions=len(names), turns=len(names) * turns)
    outcome.errors = [error for errors in found for error in errors]
    outcome.cross_talk = check_store(str(db), names, turns)
    return outcome
