"""Keep a person's words and media out of what a run writes down (``trace.redact: true``).

A redacted turn keeps its shape and its decisions: step names, kinds, timings, tokens, retries,
labels (emotions, strategies, risk categories, verdicts, avatar settings: every enum and
literal value of the schemas) and numbers. Every other string (the person's words, quotes,
prompts, raw answers, replies, notes, errors, file paths) becomes a keyed hash,
``redacted:<16 hex>``: equal texts hash alike, so a reader can still see that a cause was
quoted twice or a message repeated, but cannot read or guess them (the key lives in the home
folder, ``redact.key``, readable by its owner only). Records and results stay valid, so a
redacted trace replays and renders like any other.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import secrets
import typing
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from empathygraph import schemas, state
from empathygraph.trace import records

PREFIX = "redacted:"
# Kept as they are: where a record sits, never what was said.
STRUCTURAL = frozenset({"version", "session_id", "turn_index", "step", "kind", "round", "started_at", "backbone"})
# Always hashed, even when the words happen to equal a label ("sad" typed as a whole message).
FREE_TEXT = frozenset({"text", "words", "transcript", "user", "reply", "content", "raw", "raw_output", "causes",
                       "quote", "path", "reading", "acknowledgment", "question"})
MODALITIES = ("text", "audio", "image", "video")


def _literals(annotation: Any) -> set[str]:
    if typing.get_origin(annotation) is Literal:
        return {str(value) for value in typing.get_args(annotation)}
    return {value for arg in typing.get_args(annotation) for value in _literals(arg)}


@cache
def labels() -> frozenset[str]:
    """Every enum and literal value of the schemas, state and records: the words a redacted trace keeps."""
    found: set[str] = set(MODALITIES)
    for module in (schemas, state, records):
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, Enum):
                found |= {str(member.value) for member in obj}
            elif inspect.isclass(obj) and issubclass(obj, BaseModel):
                for field in obj.model_fields.values():
                    found |= _literals(field.annotation)
    return frozenset(found)


def redaction_key(home: Path) -> bytes:
    """The install's hashing key, made on first use (readable by its owner only)."""
    path = home / "redact.key"
    if not path.is_file():
        home.mkdir(parents=True, exist_ok=True)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first
            return path.read_bytes()
        with os.fdopen(handle, "wb") as out:
            out.write(secrets.token_bytes(32))
    return path.read_bytes()


class Redactor:
    """Replaces free text with keyed hashes in JSON data, records and turn results.

    Args:
        key: the hashing key (``redaction_key``).
    """

    def __init__(self, key: bytes) -> None:
        self.key = key[:64]

    def hash(self, text: str) -> str:
        digest = hashlib.blake2b(text.encode("utf-8", errors="surrogatepass"), key=self.key, digest_size=8)
        return PREFIX + digest.hexdigest()

    def json(self, value: Any, key: str | None = None) -> Any:
        """``value`` (JSON data) with every string but labels and structural fields hashed."""
        if isinstance(value, dict):
            return {name: item if name in STRUCTURAL else self.json(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [self.json(item, key) for item in value]
        if isinstance(value, str) and not value.startswith(PREFIX):
            return value if value in labels() and key not in FREE_TEXT else self.hash(value)
        return value

    def record(self, record: records.StepRecord) -> records.StepRecord:
        return records.StepRecord.model_validate(self.json(record.model_dump(mode="json")))

    def model(self, item: BaseModel) -> BaseModel:
        """A pydantic model (e.g. a ``TurnResult``) redacted field by field; its records too, if it has steps."""
        redacted = type(item).model_validate(self.json(item.model_dump(mode="json")))
        steps = getattr(item, "steps", None)
        if steps:
            redacted.steps = [self.record(step) for step in steps]  # type: ignore[attr-defined]
        return redacted
