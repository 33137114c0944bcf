"""The text a JSON-schema grammar forces next, so it can be drafted instead of decoded.

The agents answer with flat JSON objects of string fields, some limited to a list of
values. Between the values the grammar leaves the model no choice: after ``{"`` comes
``scenario": "``; after the scenario's closing quote, ``, "quote": "``; once the first
words of a quote match only one of its allowed values, the rest of that value. Decoded
one token at a time, each of those tokens costs a full model step (~100 ms on 2 cores);
drafted, a run of them is checked in one batch (16 tokens: ~0.4 s).

The skeleton follows llama.cpp's JSON-schema grammar: required properties in schema
order, an optional single space around the punctuation. Where a space is optional the
draft writes what the answer so far did after the same mark (a space after ``:`` and
``,`` until it shows otherwise; models mix, e.g. ``", "quote":"``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

SPACE = " "


@dataclass(frozen=True)
class StringField:
    """A property whose value is a JSON string; ``choices`` lists the allowed values, escaped as in JSON."""

    name: str
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Forced:
    """What must come next: ``text``, and whether the object is then complete."""

    text: str
    complete: bool = False


# The parts of an answer: literal text, an optional space (``after``: the mark it follows,
# where a space is usual: a colon or comma), or a field's string value.
@dataclass(frozen=True)
class _Literal:
    text: str


@dataclass(frozen=True)
class _Space:
    after: str = ""


_Part = _Literal | _Space | StringField


def _string_fields(schema: dict[str, Any]) -> tuple[StringField, ...] | None:
    """The fields of a flat object schema whose properties are all required strings, else None."""
    if schema.get("type", "object") != "object" or schema.get("additionalProperties") is True:
        return None
    properties: dict[str, Any] = schema.get("properties") or {}
    if not properties or set(schema.get("required", [])) != set(properties):
        return None
    definitions = schema.get("$defs") or {}
    fields = []
    for name, spec in properties.items():
        ref = spec.get("$ref", "")
        if ref.startswith("#/$defs/"):
            spec = definitions.get(ref.removeprefix("#/$defs/"), {})
        if "enum" in spec:
            if not all(isinstance(value, str) for value in spec["enum"]):
                return None
            fields.append(StringField(name, tuple(json.dumps(value)[1:-1] for value in spec["enum"])))
        elif spec.get("type") == "string" and "pattern" not in spec and "format" not in spec:
            fields.append(StringField(name))
        else:
            return None
    return tuple(fields)


class JsonSkeleton:
    """The fixed frame of a flat JSON object of string fields, and what it forces after a partial answer.

    Args:
        fields: the object's fields in the order the grammar requires them.
    """

    def __init__(self, fields: tuple[StringField, ...]) -> None:
        parts: list[_Part] = [_Literal("{"), _Space()]
        for index, field in enumerate(fields):
            if index:
                parts += [_Literal(","), _Space(",")]
            parts += [_Literal(json.dumps(field.name)), _Space(), _Literal(":"), _Space(":"), field, _Space()]
        parts.append(_Literal("}"))
        self.fields = fields
        self._parts = tuple(parts)

    @classmethod
    def from_schema(cls, schema: dict[str, Any] | None) -> JsonSkeleton | None:
        """The skeleton of ``schema``; None when it is not a flat object of required string fields."""
        fields = _string_fields(schema) if schema else None
        return cls(fields) if fields else None

    def forced(self, text: str) -> Forced | None:
        """What the grammar forces after the partial answer ``text`` (None: ``text`` is not on the skeleton)."""
        spaced = _spaced_marks(text)
        at = 0
        for index, part in enumerate(self._parts):
            if isinstance(part, _Space):
                at += text.startswith(SPACE, at)
            elif isinstance(part, _Literal):
                seen = text[at : at + len(part.text)]
                if not part.text.startswith(seen):
                    return None
                if len(seen) < len(part.text):
                    return self._render(part.text[len(seen) :], index + 1, spaced)
                at += len(part.text)
            else:
                end = _string_end(text, at)
                if end is None:  # the value is still open
                    return self._open_value(part, text[at:], index, spaced)
                at = end
            if at == len(text) and index + 1 < len(self._parts):
                return self._render("", index + 1, spaced)
        return Forced("", complete=True) if at == len(text) else None

    def _open_value(self, field: StringField, written: str, index: int, spaced: frozenset[str]) -> Forced:
        """What is forced inside the value of ``field`` (part ``index``) whose first ``written`` characters are known."""
        if not written:
            return self._render("", index, spaced)
        inner = written[1:]  # after the opening quote
        matching = [choice for choice in field.choices or () if choice.startswith(inner)]
        if len(matching) != 1:
            return Forced("")
        return self._render(matching[0][len(inner) :] + '"', index + 1, spaced)

    def _render(self, text: str, start: int, spaced: frozenset[str]) -> Forced:
        """``text``, then the parts from ``start`` on up to the next value the model must choose."""
        for part in self._parts[start:]:
            if isinstance(part, _Space):
                text += SPACE if part.after in spaced else ""
            elif isinstance(part, _Literal):
                text += part.text
            elif part.choices is not None and len(part.choices) == 1:
                text += f'"{part.choices[0]}"'
            else:
                return Forced(text + '"')
        return Forced(text, complete=True)


def _string_end(text: str, at: int) -> int | None:
    """The index after the JSON string starting at ``at``; None when it is not closed in ``text``."""
    if at >= len(text):
        return None
    escaped = False
    for index in range(at + 1, len(text)):
        char = text[index]
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            return index + 1
    return None


def _spaced_marks(text: str) -> frozenset[str]:
    """The marks (``:``, ``,``) the answer puts a space after: where it has not written one yet, assume it does."""
    spaced = set()
    for mark in (":", ","):
        at = text.find(f'"{mark}')
        if at == -1 or at + 2 >= len(text) or text[at + 2] == SPACE:
            spaced.add(mark)
    return frozenset(spaced)
