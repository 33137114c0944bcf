"""Turn events as Server-Sent Events: one event name and one JSON payload per typed event.

    event: step_finished
    data: {"t": 4.21, "node": "emotion_cause", "label": "emotion-cause agent", "headline": "sad", ...}

``t`` is the seconds since the server received the turn. Files become URLs of the session's
own folder (``files.SessionFiles.url``); a file outside it is not announced.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from empathygraph.graphs.registry import view
from empathygraph.schemas import AvatarProfile, SpeechStyle, StepOutput
from empathygraph.serve.files import SessionFiles
from empathygraph.trace.events import (
    CustomEvent,
    MediaReady,
    ReplyStarted,
    ReplyToken,
    SpeechReady,
    SpeechWithdrawn,
    StepFinished,
    StepStarted,
    TurnEvent,
    TurnFinished,
    Verdict,
)
from empathygraph.turn import TurnResult


class Queued(BaseModel):
    """The turn waits: ``position`` turns are ahead of it, counting the one it waits behind (1: next)."""

    position: int


class Started(BaseModel):
    """The turn began (after any wait)."""

    session_id: str
    turn_index: int


class StepBegan(BaseModel):
    node: str
    label: str


class StepOutcome(BaseModel):
    """A step finished: what it decided (its parsed outputs), how long it took, what went wrong."""

    node: str
    label: str
    seconds: float
    headline: str = ""
    decisions: list[tuple[str, str]] = Field(default_factory=list)
    outputs: list[dict[str, Any]] = Field(default_factory=list, description="each record's parsed output")
    errors: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class VerdictData(BaseModel):
    verdict: str
    issues: list[str]
    advice: str
    round: int


class ReplyBegan(BaseModel):
    """A reply is about to be written, in this voice."""

    speech: SpeechStyle
    profile: AvatarProfile


class ReplyText(BaseModel):
    text: str
    node: str


class SpeechData(BaseModel):
    """One spoken sentence: play in ``index`` order."""

    index: int
    text: str
    url: str
    duration_s: float


class Withdrawn(BaseModel):
    """Drop the spoken sentences from ``keep`` on; the reply's own follow."""

    keep: int


class MediaData(BaseModel):
    kind: str
    url: str


class TurnData(BaseModel):
    """The finished turn (``TurnResult``) and the URLs of its media."""

    result: dict[str, Any]
    media: dict[str, str]


class ErrorData(BaseModel):
    code: str
    message: str


EVENT_TYPES: dict[str, type[BaseModel]] = {
    "queued": Queued, "started": Started, "step_started": StepBegan, "step_finished": StepOutcome,
    "verdict": VerdictData, "reply_started": ReplyBegan, "reply_token": ReplyText, "speech": SpeechData,
    "speech_withdrawn": Withdrawn, "media": MediaData, "turn": TurnData, "error": ErrorData,
}


def _label(node: str) -> str:
    spec = view(node)
    return spec.label if spec is not None else node


def _finished(event: StepFinished, public: Callable[[Any], Any]) -> StepOutcome:
    decisions: list[tuple[str, str]] = []
    headline = ""
    for record in event.records:
        spec = view(record.step)
        typed = spec.read(record.output) if spec is not None else None
        if isinstance(typed, StepOutput):
            decisions += [(str(k), str(v)) for k, v in typed.decisions()]
            headline = typed.headline() or headline
    return StepOutcome(
        node=event.node, label=_label(event.node), seconds=round(event.latency_s, 4), headline=public(headline),
        decisions=public(decisions), outputs=public([record.output for record in event.records]),
        errors=[record.error for record in event.records if record.error],
        notes=[note for record in event.records for note in record.notes],
    )


def to_wire(event: TurnEvent, session_id: str, files: SessionFiles) -> tuple[str, BaseModel] | None:
    """The SSE event name and payload of a turn event (None: nothing a client needs)."""
    match event:
        case StepStarted(node=node):
            return "step_started", StepBegan(node=node, label=_label(node))
        case StepFinished():
            return "step_finished", _finished(event, lambda value: files.public(session_id, value))
        case Verdict(critique=critique, round=round_):
            return "verdict", VerdictData(verdict=critique.verdict, issues=critique.issues,
                                          advice=critique.advice, round=round_)
        case ReplyStarted(voice=voice):
            return "reply_started", ReplyBegan(speech=voice.speech, profile=voice.profile)
        case ReplyToken(text=text, node=node):
            return "reply_token", ReplyText(text=text, node=node)
        case SpeechReady(index=index, text=text, path=path, duration_s=duration):
            url = files.url(session_id, path)
            return ("speech", SpeechData(index=index, text=text, url=url, duration_s=duration)) if url else None
        case SpeechWithdrawn(keep=keep):
            return "speech_withdrawn", Withdrawn(keep=keep)
        case MediaReady(kind=kind, path=path):
            url = files.url(session_id, path)
            return ("media", MediaData(kind=kind, url=url)) if url else None
        case TurnFinished(result=result):
            return "turn", turn_data(result, files)
        case CustomEvent():
            return None
    return None


def turn_data(result: TurnResult, files: SessionFiles) -> TurnData:
    """A finished turn as the API shows it: the result and its media's URLs."""
    urls = {kind: url for kind, path in result.media.items() if (url := files.url(result.session_id, path))}
    return TurnData(result=files.public(result.session_id, result.model_dump(mode="json")), media=urls)


def frame(name: str, payload: BaseModel, seconds: float) -> dict[str, str]:
    """One SSE message (for ``sse_starlette``): the event name and its JSON with ``t``."""
    return {"event": name, "data": json.dumps({**payload.model_dump(mode="json"), "t": round(seconds, 4)})}
