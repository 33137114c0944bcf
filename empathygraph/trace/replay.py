"""Replay a trace: group its steps into turns and read each step's decisions.

Works from ``StepRecord`` data alone, so a trace written by any run (or another
machine) can be inspected without the models that produced it. Each record's output is
read as the schema its step declares (``graphs/registry.py``), which says what it decided;
a step the registry does not know is read as plain values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from empathygraph.graphs.registry import view
from empathygraph.schemas import Decisions, StepOutput
from empathygraph.trace.records import StepRecord
from empathygraph.turn import TurnResult


def group_turns(records: Iterable[StepRecord]) -> list[TurnResult]:
    """Group records by (session, turn), in order of first appearance, and read each turn back."""
    turns: dict[tuple[str, int], list[StepRecord]] = {}
    for record in records:
        turns.setdefault((record.session_id, record.turn_index), []).append(record)
    return [TurnResult.from_steps(session_id, turn_index, steps) for (session_id, turn_index), steps in turns.items()]


def matches_agent(record: StepRecord, name: str) -> bool:
    """Whether ``name`` picks this step: its node name (``render`` also picks ``render:piper``) or kind."""
    name = name.lower().replace("-", "_")
    return record.step == name or record.step.split(":")[0] == name or record.kind == name


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def typed_output(record: StepRecord) -> StepOutput | None:
    """The record's output as its step's schema (None: an unknown step, or an output that does not validate)."""
    found = view(record.step)
    typed = found.read(record.output) if found is not None else None
    return typed if isinstance(typed, StepOutput) else None


def decisions(record: StepRecord) -> Decisions:
    """What a step decided, as (label, value) pairs for people to read."""
    typed = typed_output(record)
    found = typed.decisions() if typed is not None else [(k, v) for k, v in record.output.items() if isinstance(v, str | int | float)]
    found = [(label, _short(value)) for label, value in found if value not in ("", None)]
    if record.fallback:
        found.append(("fallback", _short(record.fallback)))
    if record.error:
        found.append(("error", _short(record.error)))
    found += [("note", _short(note)) for note in record.notes]
    return found


def headline(record: StepRecord) -> str:
    """The one decision that names a step in a live view (e.g. 'sad · "my dog died"')."""
    typed = typed_output(record)
    if typed is not None and (said := typed.headline()):
        return said
    first = decisions(record)
    return first[0][1] if first else ""
