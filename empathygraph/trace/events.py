"""Typed events of a turn as it runs, built from LangGraph's stream modes.

``tasks`` says when a step starts, ``updates`` when it finished and what it decided,
``messages`` carries the LLM's tokens (of which the reply text is picked out as it
is written), ``custom`` carries whatever a node sends with ``emit`` (a ``ReplyVoice``
becomes ``ReplyStarted``). ``SpeechReady`` and ``SpeechWithdrawn`` come from speaking the
reply while it is written (``empathygraph.live_speech``), not from the graph.

    for event in empathizer.events("My dog died."):
        match event:
            case ReplyToken(text=text): print(text, end="")
            case TurnFinished(result=result): ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.utils.json import parse_partial_json
from langgraph.config import get_stream_writer

from empathygraph.graphs.registry import reply_fields
from empathygraph.schemas import Critique, ReplyVoice
from empathygraph.trace.records import StepRecord
from empathygraph.turn import TurnResult

STREAM_MODES: list[str] = ["tasks", "updates", "messages", "custom"]


@dataclass(frozen=True)
class StepStarted:
    """A node began."""

    node: str


@dataclass(frozen=True)
class StepFinished:
    """A node finished; ``records`` are its trace records (with parsed outputs)."""

    node: str
    records: list[StepRecord] = field(default_factory=list)
    update: dict[str, Any] = field(default_factory=dict)

    @property
    def latency_s(self) -> float:
        return sum(record.latency_s for record in self.records)


@dataclass(frozen=True)
class Verdict:
    """The reflection agent accepted the reply or sent it back (``round`` 0: the first draft)."""

    critique: Critique
    round: int


@dataclass(frozen=True)
class ReplyToken:
    """New text of the reply as the LLM writes it (a revision starts over)."""

    text: str
    node: str


@dataclass(frozen=True)
class ReplyStarted:
    """A step is about to write a reply that will sound as ``voice``."""

    voice: ReplyVoice


@dataclass(frozen=True)
class SpeechReady:
    """One sentence of the reply was spoken into the WAV at ``path``; sentences play in ``index`` order."""

    index: int
    text: str
    path: str
    duration_s: float


@dataclass(frozen=True)
class SpeechWithdrawn:
    """Sentences from ``keep`` on were spoken from a draft the reply no longer has: drop them (others follow)."""

    keep: int


@dataclass(frozen=True)
class MediaReady:
    """A generator wrote a media file (``kind``: audio, video, …)."""

    kind: str
    path: str


@dataclass(frozen=True)
class CustomEvent:
    """Anything a node sent with ``emit``."""

    data: Any


@dataclass(frozen=True)
class TurnFinished:
    """The turn is over; ``result`` is what ``Empathizer.respond`` returns."""

    result: TurnResult


TurnEvent = (StepStarted | StepFinished | Verdict | ReplyStarted | ReplyToken | SpeechReady | SpeechWithdrawn
             | MediaReady | CustomEvent | TurnFinished)


def emit(**data: Any) -> None:
    """Send a custom event from inside a node (a no-op outside a streaming run)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run
        return
    writer(data)


class ReplyWatcher:
    """Pick the reply text out of a JSON answer that arrives token by token."""

    def __init__(self, fields: dict[str, tuple[str, ...]] | None = None) -> None:
        # Steps whose LLM answer carries the reply text, and the JSON fields that hold it, in reply order.
        self.fields = reply_fields() if fields is None else fields
        self._raw: dict[str, str] = {}
        self._call: dict[str, str | None] = {}
        self._shown: dict[str, str] = {}

    def restart(self, node: str) -> None:
        """Forget what a node wrote (it is about to answer again)."""
        self._raw.pop(node, None)
        self._call.pop(node, None)
        self._shown.pop(node, None)

    def feed(self, node: str, token: str, call: str | None = None) -> str:
        """Take one token of ``node``'s answer; return the reply text it added.

        ``call`` names the LLM call the token belongs to: a node that asks again (a retry after a
        cut stream, a repair) starts a new answer, not a continuation of the broken one. What was
        shown stays shown; an answer that is not JSON yet, or never will be, adds nothing.
        """
        keys = self.fields.get(node)
        if keys is None or not token:
            return ""
        if call != self._call.get(node, call):
            self._raw.pop(node, None)
        self._call[node] = call
        raw = self._raw.get(node, "") + token
        self._raw[node] = raw
        try:
            parsed = parse_partial_json(raw) if "{" in raw else None
        except ValueError:  # malformed beyond completing (a broken key, a stray brace)
            return ""
        if not isinstance(parsed, dict):
            return ""
        parts = [value.strip() for key in keys if isinstance(value := parsed.get(key), str) and value.strip()]
        # A part another follows is a sentence of its own, as the reply is assembled (an acknowledgment the
        # model left without a full stop gets one): so a sentence is known complete as soon as the next begins.
        text = " ".join(part + "." if index < len(parts) - 1 and part[-1].isalnum() else part
                        for index, part in enumerate(parts))
        shown = self._shown.get(node, "")
        if not text.startswith(shown) or len(text) == len(shown):
            return ""
        self._shown[node] = text
        return text[len(shown):]


def _finished(node: str, change: Any) -> Iterator[TurnEvent]:
    change = change if isinstance(change, dict) else {}
    yield StepFinished(node, records=list(change.get("steps") or []), update=change)
    critique = change.get("critique")
    if isinstance(critique, Critique):
        reviewed = [record.round for record in change.get("steps") or []]
        yield Verdict(critique, round=reviewed[-1] if reviewed else 0)
    for kind, path in (change.get("media") or {}).items():
        yield MediaReady(kind, str(path))


def turn_events(stream: Iterable[tuple[str, Any]], finish: Callable[[], TurnResult]) -> Iterator[TurnEvent]:
    """Turn a LangGraph multi-mode stream (``STREAM_MODES``) into typed events.

    Args:
        stream: ``(mode, data)`` pairs from ``graph.stream(..., stream_mode=STREAM_MODES)``.
        finish: builds the turn's result once the stream is over.
    """
    replies = ReplyWatcher()
    for mode, data in stream:
        if mode == "tasks" and "result" not in data:  # a task's start; its end comes in "updates"
            replies.restart(data["name"])
            yield StepStarted(data["name"])
        elif mode == "updates":
            for node, change in data.items():
                if not node.startswith("__"):
                    yield from _finished(node, change)
        elif mode == "messages":
            chunk, meta = data
            node = meta.get("langgraph_node", "")
            text = replies.feed(node, chunk.content if isinstance(chunk.content, str) else "", chunk.id)
            if text:
                yield ReplyToken(text, node)
        elif mode == "custom":
            yield ReplyStarted(data) if isinstance(data, ReplyVoice) else CustomEvent(data)
    yield TurnFinished(finish())
