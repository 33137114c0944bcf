"""Write and read ``trace.jsonl``: one StepRecord per line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from empathygraph.errors import EmpathyGraphError
from empathygraph.trace.records import StepRecord


class TraceError(EmpathyGraphError):
    """A trace file is missing or has a line that is not a step record."""


def write_trace(path: Path, steps: Iterable[StepRecord], *, append: bool = False) -> Path:
    """Write step records as JSON lines (appending keeps a session's turns in one file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as handle:
        for step in steps:
            handle.write(step.model_dump_json() + "\n")
    return path


def read_trace(path: Path) -> tuple[list[StepRecord], list[str]]:
    """Read every valid record; return them and one message per line that was not one."""
    if not path.is_file():
        raise TraceError(f"trace not found: {path}")
    records, problems = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(StepRecord.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            problems.append(f"{path}:{number}: not a step record ({str(exc).splitlines()[0][:120]})")
    if not records and problems:
        raise TraceError(f"{path}: no line is a step record; first problem: {problems[0]}")
    return records, problems
