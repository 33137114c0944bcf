"""Read JSON files item by item, keeping each item's line number for error messages.

JSON Lines files are read by ``empathygraph.jsonl`` (shared with the perception tools).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from empathygraph.errors import DatasetError
from empathygraph.jsonl import read_text


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _skip(text: str, pos: int, chars: str = " \t\r\n") -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def iter_json_items(path: str | Path) -> Iterator[tuple[str | int, int, Any]]:
    """Yield (key or index, line, value) for each top-level item of a JSON array or object.

    Raises:
        DatasetError: the file is not a JSON array or object.
    """
    text = read_text(path)
    decoder = json.JSONDecoder()
    pos = _skip(text, 0)
    if pos >= len(text) or text[pos] not in "[{":
        raise DatasetError(f"{path}:{_line_of(text, pos)}: expected a JSON array or object")
    is_object = text[pos] == "{"
    pos, index = _skip(text, pos + 1), 0
    line, counted = 1, 0  # lines counted up to ``counted``, so the scan stays linear
    try:
        while pos < len(text) and text[pos] not in "]}":
            key: str | int = index
            if is_object:
                key, pos = decoder.raw_decode(text, pos)
                pos = _skip(text, pos)
                if text[pos] != ":":
                    raise ValueError("expected ':'")
                pos = _skip(text, pos + 1)
            line, counted = line + text.count("\n", counted, pos), pos
            value, pos = decoder.raw_decode(text, pos)
            yield key, line, value
            index += 1
            pos = _skip(text, _skip(text, pos), " \t\r\n,")
    except (ValueError, IndexError) as exc:
        raise DatasetError(f"{path}:{_line_of(text, pos)}: not valid JSON ({exc})") from None
