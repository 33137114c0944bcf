"""Compare two traces of the same scenario step by step (e.g. two backbones).

Turns pair up by position; within a turn, steps pair up by name and occurrence
(the second ``response`` of A with the second ``response`` of B).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import zip_longest

from empathygraph.trace.records import StepRecord
from empathygraph.trace.replay import decisions
from empathygraph.turn import TurnResult


@dataclass
class StepDiff:
    """One step in both runs (``None`` where a run did not take it) and what differs."""

    step: str
    a: StepRecord | None
    b: StepRecord | None
    changed: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.a is not None and self.b is not None and not self.changed

    @property
    def latency_delta_s(self) -> float:
        return (self.b.latency_s if self.b else 0.0) - (self.a.latency_s if self.a else 0.0)


@dataclass
class TurnDiff:
    """The steps of one turn, paired."""

    index: int
    a: TurnResult | None
    b: TurnResult | None
    steps: list[StepDiff]


def _decided(record: StepRecord | None) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    for label, value in decisions(record) if record else []:
        found.setdefault(label, []).append(value)
    return {label: " | ".join(values) for label, values in found.items()}


def _keyed(turn: TurnResult | None) -> list[tuple[str, int, StepRecord]]:
    seen: Counter[str] = Counter()
    keyed = []
    for record in turn.steps if turn else []:
        keyed.append((record.step, seen[record.step], record))
        seen[record.step] += 1
    return keyed


def diff_steps(a: StepRecord | None, b: StepRecord | None) -> list[tuple[str, str, str]]:
    """The decisions that differ between two records of one step: (label, in A, in B)."""
    da, db = _decided(a), _decided(b)
    labels = list(dict.fromkeys([*da, *db]))
    return [(label, da.get(label, ""), db.get(label, "")) for label in labels if da.get(label) != db.get(label)]


def diff_turn(index: int, a: TurnResult | None, b: TurnResult | None) -> TurnDiff:
    """Pair the steps of one turn of each run."""
    in_a = {(name, n): record for name, n, record in _keyed(a)}
    in_b = {(name, n): record for name, n, record in _keyed(b)}
    order = list(dict.fromkeys([*((k, n) for k, n, _ in _keyed(a)), *((k, n) for k, n, _ in _keyed(b))]))
    steps = [StepDiff(key[0], in_a.get(key), in_b.get(key), diff_steps(in_a.get(key), in_b.get(key))) for key in order]
    return TurnDiff(index, a, b, steps)


def diff_traces(a: list[TurnResult], b: list[TurnResult]) -> list[TurnDiff]:
    """Pair two runs' turns by position and diff each."""
    return [diff_turn(index, ta, tb) for index, (ta, tb) in enumerate(zip_longest(a, b))]
