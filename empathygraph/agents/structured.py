"""Ask the backbone for one schema-valid answer, with a bounded repair loop.

Decoding is constrained to the schema where the backbone allows it; the answer is
then validated by pydantic and by the agent's own check (e.g. "the cause must be
quoted from the user's words"). An invalid answer is shown back to the model with
what was wrong, at most ``repair_attempts`` times.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError, create_model

from empathygraph.backbones.base import Backbone
from empathygraph.trace.records import LLMAttempt, TokenUsage

T = TypeVar("T", bound=BaseModel)
Check = Callable[[T], str | None]

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


@dataclass
class Answer(Generic[T]):
    """The accepted answer (None if every attempt failed) and every attempt made.

    ``unchecked`` keeps the last answer that parsed but failed the agent's check,
    for agents that can still use part of it as an honest fallback.
    """

    parsed: T | None
    attempts: list[LLMAttempt]
    unchecked: T | None = None
    salvaged: bool = False

    @property
    def raw(self) -> str:
        return self.attempts[-1].raw if self.attempts else ""

    @property
    def accepted(self) -> str | None:
        """The raw text of the accepted answer (what the shared chat keeps); None when none was accepted."""
        return self.raw if self.parsed is not None else None

    @property
    def tokens(self) -> TokenUsage:
        return TokenUsage.sum(attempt.tokens for attempt in self.attempts)

    @property
    def retries(self) -> int:
        return max(len(self.attempts) - 1, 0)

    @property
    def error(self) -> str | None:
        return None if self.parsed is not None else (self.attempts[-1].error if self.attempts else "no attempt")


def parse_json_answer(raw: str, schema: type[T]) -> T:
    """Parse a model's text as ``schema``, tolerating code fences and chatter around the JSON."""
    text = _FENCE.sub("", raw.strip())
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        raise ValueError("no JSON object in the answer")
    return schema.model_validate(json.loads(text[start : end + 1]))


_SENTENCE_END = re.compile(r"[.!?][\"')]*(?=\s|$)")


def complete_part(cut: str, *, words_ok: bool) -> str | None:
    """What is complete at the start of a text cut off somewhere: its whole sentences, or with ``words_ok`` its
    whole words and an ellipsis (the last word may be cut in half); None when nothing complete is left."""
    if ends := list(_SENTENCE_END.finditer(cut)):
        return cut[: ends[-1].end()]
    if words_ok and len(words := cut.split()[:-1]) >= 2:
        return " ".join(words).rstrip(",;:") + "…"
    return None


def clip_text(text: object, limit: int) -> object:
    """``text`` cut to ``limit`` characters at its last complete sentence (else word, with an ellipsis), for a
    free-text field a model wrote too long: one long scenario should not cost the whole analysis. Not a
    string: returned as is, for the schema to refuse."""
    if not isinstance(text, str) or len(text) <= limit:
        return text
    return complete_part(text[:limit], words_ok=True) or text[: limit - 1] + "…"


def close_cut_json(raw: str, schema: type[T], *, words_ok: bool = False) -> T | None:
    """Rebuild a flat JSON answer cut off inside its last string value (e.g. at ``max_tokens``).

    The open string keeps its complete sentences (or, with ``words_ok``, its complete words
    and an ellipsis, for a field such as a rationale where a clipped phrase still informs)
    and the object is closed; None when the cut is elsewhere, nothing complete is left, or
    the result is not ``schema``.
    """
    start = raw.find("{")
    if start == -1:
        return None
    body = raw[start:]
    in_string, escaped, opened_at = False, False, -1
    for index, char in enumerate(body):
        if in_string:
            if char == '"' and not escaped:
                in_string = False
            escaped = char == "\\" and not escaped
        elif char == '"':
            in_string, escaped, opened_at = True, False, index
        elif char == "}":
            return None  # the object closed: not a cut-off answer
    if not in_string:
        return None
    kept = complete_part(body[opened_at + 1 :].rstrip("\\"), words_ok=words_ok)
    if kept is None:
        return None
    try:
        return parse_json_answer(body[: opened_at + 1] + kept + '"}', schema)
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)  # per-turn choices (a message's clauses) must not grow it forever
def with_choices(schema: type[T], field: str, choices: tuple[str, ...]) -> type[T]:
    """``schema`` with ``field`` constrained to ``choices`` (a subclass of the same name, so the
    decode-time constraint and the validation both know the shorter list)."""
    allowed = Literal[choices]  # type: ignore[valid-type]
    return create_model(schema.__name__, __base__=schema, **{field: (allowed, ...)})  # type: ignore[call-overload]


def _usage(message: BaseMessage) -> TokenUsage:
    usage = getattr(message, "usage_metadata", None) or {}
    return TokenUsage(prompt=usage.get("input_tokens", 0), completion=usage.get("output_tokens", 0))


def ask(
    backbone: Backbone,
    messages: list[BaseMessage],
    schema: type[T],
    *,
    repair_attempts: int = 1,
    check: Check[T] | None = None,
    max_tokens: int | None = None,
    words_ok: bool = False,
    repair_schema: type[T] | None = None,
    temperature: float | None = None,
) -> Answer[T]:
    """Get one answer that parses as ``schema`` and passes ``check``.

    Args:
        max_tokens: the most tokens the first try may take (a hard bound on decode time);
            a re-ask may take twice as many (an answer cut off once gets room to finish,
            a rambling model cannot run to the backbone's limit); None uses the backbone's limit.
        repair_schema: a stricter schema for re-asks (e.g. a field limited to the values that
            pass ``check``: asked again freely, a small model was seen to repeat its answer).
        temperature: sampling temperature of this step (None: the backbone's).

    An answer cut off inside its last text field (at ``max_tokens``, where a re-ask
    would only be cut off again) keeps its complete sentences (``words_ok``: words) and
    is marked ``salvaged``.

    Raises:
        BackendError: when the backbone itself fails (unreachable, crashed) after its bounded
            retries of transient failures (``Backbone.retry``).
    """
    retry_schema = repair_schema or schema
    constrained, strict = backbone.for_schema(schema), backbone.for_schema(retry_schema)
    sampling = {"temperature": temperature} if temperature is not None else {}
    first = constrained.bind(**sampling, **({"max_tokens": max_tokens} if max_tokens is not None else {}))
    again = strict.bind(**sampling, **({"max_tokens": 2 * max_tokens} if max_tokens is not None else {}))
    conversation = list(messages)
    attempts: list[LLMAttempt] = []
    unchecked: T | None = None
    for attempt_index in range(repair_attempts + 1):
        started = time.perf_counter()
        runnable, expected = (first, schema) if attempt_index == 0 else (again, retry_schema)
        reply = backbone.invoke(runnable, conversation)
        raw = str(reply.content)
        attempt = LLMAttempt(raw=raw, tokens=_usage(reply), latency_s=time.perf_counter() - started)
        attempts.append(attempt)
        try:
            parsed = parse_json_answer(raw, expected)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            attempt.error = f"invalid {expected.__name__}: {problems[:300]}"
            parsed = None
        except ValueError as exc:
            attempt.error = f"invalid {expected.__name__}: {str(exc)[:200]}"
            parsed = None
        rebuilt = close_cut_json(raw, expected, words_ok=words_ok) if parsed is None else None
        if rebuilt is not None and (check is None or check(rebuilt) is None):
            return Answer(parsed=rebuilt, attempts=attempts, salvaged=True)
        if parsed is not None and check is not None:
            attempt.error = check(parsed)
            unchecked = parsed if attempt.error else unchecked
        if attempt.error is None:
            return Answer(parsed=parsed, attempts=attempts)
        conversation += [
            AIMessage(content=raw),
            HumanMessage(content=f"That answer was not usable: {attempt.error}. Answer again with only the corrected JSON."),
        ]
    return Answer(parsed=None, attempts=attempts, unchecked=unchecked)
