"""Write and read ``trace.jsonl``: one StepRecord per line.

Reading is forgiving line by line (a truncated or hand-edited file still yields the
records it holds, plus one message per bad line naming it) and strict about the
whole (a path that is not a trace is an error).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from empathygraph.errors import EmpathyGraphError
from empathygraph.files import append_text, write_text
from empathygraph.trace.records import TRACE_VERSION, StepRecord

TRACE_NAME = "trace.jsonl"

# Upgrades of older record layouts, keyed by the version they upgrade *from*; each
# returns the record one version newer. A version with no entry here is unreadable.
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


class TraceError(EmpathyGraphError):
    """A trace file is missing or has a line that is not a step record."""


class BadLine(ValueError):
    """One line of a trace is not a readable step record; the message says why."""


def write_trace(path: Path, steps: Iterable[StepRecord], *, append: bool = False) -> Path:
    """Write step records as JSON lines (appending keeps a session's turns in one file).

    The file is replaced in one step (``files``): a crash leaves the old trace or the new one,
    never a cut-off line.
    """
    text = "".join(step.model_dump_json() + "\n" for step in steps)
    return append_text(path, text) if append else write_text(path, text)


def resolve_trace(path: Path) -> Path:
    """The trace file at ``path``: the file itself, or ``trace.jsonl`` in a run folder."""
    if path.is_dir():
        if (path / TRACE_NAME).is_file():
            return path / TRACE_NAME
        raise TraceError(f"{path}: a folder without a {TRACE_NAME}")
    if not path.is_file():
        raise TraceError(f"trace not found: {path}")
    return path


def _validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = ".".join(map(str, first["loc"])) or "record"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"field '{field}': {first['msg']}{more}"


def _upgrade(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("version")
    if not isinstance(version, int):
        raise BadLine("no integer 'version' field: not an empathygraph step record")
    if version > TRACE_VERSION:
        raise BadLine(f"trace version {version} is newer than this empathygraph reads ({TRACE_VERSION}); upgrade it")
    while version < TRACE_VERSION:
        if version not in UPGRADES:
            raise BadLine(
                f"trace version {version} is from an older empathygraph that this one cannot read "
                f"(it reads version {TRACE_VERSION}); run the scenario again"
            )
        data = UPGRADES[version](data)
        version = data["version"]
    return data


def parse_line(line: str) -> StepRecord:
    """Parse one trace line.

    Raises:
        BadLine: with a message saying what is wrong with the line.
    """
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        cut = "; the line looks cut off" if line.lstrip().startswith("{") and not line.rstrip().endswith("}") else ""
        raise BadLine(f"not JSON: {exc.msg} (column {exc.colno}){cut}") from exc
    if not isinstance(data, dict):
        raise BadLine(f"a JSON {type(data).__name__}, not a step record object")
    data = _upgrade(data)
    try:
        return StepRecord.model_validate(data)
    except ValidationError as exc:
        raise BadLine(_validation_message(exc)) from exc


def read_trace(path: Path) -> tuple[list[StepRecord], list[str]]:
    """Read every valid record; return them and one ``path:line: problem`` message per bad line.

    Args:
        path: a ``trace.jsonl`` or a run folder holding one.

    Raises:
        TraceError: the path is missing, empty, or no line of it is a step record.
    """
    path = resolve_trace(path)
    records, problems = [], []
    text = path.read_bytes().decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(parse_line(line))
        except BadLine as exc:
            problems.append(f"{path}:{number}: {exc}")
    if not records:
        if not problems:
            raise TraceError(f"{path}: empty trace (no step records)")
        first = problems[0].removeprefix(f"{path}:")
        raise TraceError(f"{path} is not a trace: no line is a step record (line {first})")
    return records, problems
