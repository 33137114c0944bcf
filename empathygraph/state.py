"""The graph state: what one turn carries through the agents, and what a session keeps.

Per-turn keys are cleared by the first node of every turn; ``history`` and ``profile``
persist in the checkpointer across turns of a session. Keys written by parallel
branches (``cues``, ``skipped``, ``steps``, ``media``) have reducers; sending ``None``
to them clears them.

Two records of a turn's reasoning sit side by side and never stand in for each other:
``chat`` is the agents' prompt memory (each LLM step's task and answer, from which the
next agent's prompt is built), ``steps`` is the trace (what each step did, for people).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypedDict, TypeVar

from pydantic import BaseModel, Field, field_validator, model_validator

from empathygraph.errors import InputError
from empathygraph.schemas import (
    AvatarProfile,
    CoarseEmotion,
    Critique,
    Cues,
    EDEmotion,
    EmotionAnalysis,
    EmpathyPlan,
    PerceptionReport,
    Record,
    ResponsePlan,
    RiskCategory,
    SafetyAssessment,
    Strategy,
)
from empathygraph.trace.records import StepRecord

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


# Control characters (C0 but tab and newline, DEL, C1): terminal escapes and NULs have no
# place in a message, and would reach the terminal, the trace and the prompt.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """``text`` with line ends unified, control characters dropped and lone surrogates replaced."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.encode("utf-8", errors="replace").decode("utf-8")  # a lone surrogate cannot be written
    return _CONTROL.sub("", text)


class TurnInput(BaseModel):
    """One user turn: any mix of text, speech and a face image or video."""

    text: str | None = None
    audio: Path | None = None
    image: Path | None = None
    video: Path | None = None
    profile: AvatarProfile | None = Field(default=None, description="listener avatar for this session")

    @field_validator("text")
    @classmethod
    def _printable(cls, text: str | None) -> str | None:
        return clean_text(text) if text is not None else None

    @model_validator(mode="after")
    def _not_empty(self) -> TurnInput:
        if not (self.text and self.text.strip()) and not (self.audio or self.image or self.video):
            raise InputError("empty turn: give text, audio, an image or a video")
        return self

    @property
    def modalities(self) -> list[str]:
        found = [("text", self.text), ("audio", self.audio), ("image", self.image), ("video", self.video)]
        return [name for name, value in found if value]


class HistoryEntry(Record):
    """What a session remembers of one finished turn."""

    turn_index: int
    user: str
    reply: str
    emotion: EDEmotion
    coarse: CoarseEmotion
    valence: float
    arousal: float
    strategy: Strategy
    risk: RiskCategory = RiskCategory.NONE
    risk_tentative: bool = Field(default=False, description="that risk was read as unsure (a tentative reading)")
    recalled: str | None = Field(default=None, description="the reply as later prompts show it, when shorter: the "
                                 "crisis protocol's fixed steps and helplines named, not repeated (None: ``reply``)")

    @property
    def reply_in_prompts(self) -> str:
        """What the agents' prompts show of the reply."""
        return self.recalled if self.recalled is not None else self.reply


class Exchange(Record):
    """One LLM step of the agents' shared chat: the message it was asked and the answer it gave."""

    step: str
    asked: str
    answer: str


def merge_cues(current: Cues | None, update: Cues | Mapping[str, Any] | None) -> Cues:
    """Add parallel finds to the turn's cues (a ``Cues`` or a mapping of cue names); ``None`` clears them."""
    if update is None:
        return Cues()
    found = dict(update) if isinstance(update, Mapping) else {name: getattr(update, name) for name in update.model_fields_set}
    return (current or Cues()).model_copy(update=found)


def merge_or_clear(current: dict[K, V] | None, update: dict[K, V] | None) -> dict[K, V]:
    """Merge parallel writes into a dict; ``None`` clears it for a new turn."""
    if update is None:
        return {}
    return {**(current or {}), **update}


def extend_or_clear(current: list[T] | None, update: list[T] | None) -> list[T]:
    """Append parallel writes to a list; ``None`` clears it for a new turn."""
    if update is None:
        return []
    return [*(current or []), *update]


class MergState(TypedDict):
    """State of the multimodal empathetic response graph.

    Every key is there while a turn runs: the caller gives ``session_id`` and ``turn``,
    ``begin_turn`` sets the per-turn keys (an agent's output is None until it has run),
    and the session keeps ``history`` and ``profile``. A step added with an ``AgentSpec``
    that writes a field of its own gets that key too (``graphs.merg.build_graph``).
    """

    # given by the caller
    session_id: str
    turn: TurnInput
    # this turn's working state, set by begin_turn
    turn_index: int
    cues: Annotated[Cues, merge_cues]
    skipped: Annotated[list[str], extend_or_clear]
    perception: PerceptionReport | None
    emotion: EmotionAnalysis | None
    safety: SafetyAssessment | None
    empathy: EmpathyPlan | None
    response: ResponsePlan | None
    critique: Critique | None
    critiques: Annotated[list[Critique], extend_or_clear]
    rounds: int
    media: Annotated[dict[str, str], merge_or_clear]
    chat: Annotated[list[Exchange], extend_or_clear]
    steps: Annotated[list[StepRecord], extend_or_clear]
    # kept by the session across turns
    history: Annotated[list[HistoryEntry], operator.add]
    profile: AvatarProfile


class MergInput(TypedDict, total=False):
    """What a caller passes to start a turn."""

    session_id: str
    turn: TurnInput


class MergOutput(TypedDict, total=False):
    """What a finished turn returns."""

    turn_index: int
    perception: PerceptionReport | None
    emotion: EmotionAnalysis | None
    safety: SafetyAssessment | None
    empathy: EmpathyPlan | None
    response: ResponsePlan | None
    critiques: list[Critique]
    media: dict[str, str]
    steps: list[StepRecord]
    skipped: list[str]
    history: list[HistoryEntry]
