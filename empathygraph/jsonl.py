"""Read JSON Lines files line by line, keeping each line's number for error messages.

A leaf module (it imports only ``errors``), shared by the evaluation's dataset loaders and
the perception tools' example bank.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from empathygraph.errors import DatasetError


def read_text(path: str | Path) -> str:
    """The file's text; a clear error when it is missing or not text."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"dataset file not found: {path}")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: is not a UTF-8 text file") from None


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (line, object, error) per non-empty line; object is None when the line is not JSON."""
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"not JSON ({exc.msg})"
