"""What the evaluation runs on: one sample per prediction, and the loader's account of bad records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from empathygraph.schemas import CoarseEmotion, EDEmotion, Strategy

Role = Literal["user", "listener"]


class Utterance(BaseModel):
    """One earlier utterance of the conversation, from the person (user) or the listener."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    text: str
    strategy: Strategy | None = None


class Sample(BaseModel):
    """One item to predict: the person's current words, what came before, and the labels.

    Attributes:
        id: stable within the dataset file (the cache key).
        text: what the person says now (the turn the system answers).
        history: earlier utterances, oldest first.
        emotion: gold ED emotion (32-way datasets).
        coarse: gold coarse emotion (MELD, RECCON).
        strategy: gold ESConv strategy of the reply.
        reference: the dataset's reply to ``text``.
        causes: gold cause spans (RECCON).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    dataset: str
    text: str
    history: list[Utterance] = Field(default_factory=list)
    emotion: EDEmotion | None = None
    coarse: CoarseEmotion | None = None
    strategy: Strategy | None = None
    reference: str | None = None
    causes: list[str] = Field(default_factory=list)
    position: int = Field(default=0, description="index of the reply among the listener's turns")


@dataclass(frozen=True)
class BadRecord:
    """A record the loader skipped, and where it is."""

    file: str
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: field '{self.field}': {self.problem}"


@dataclass
class LoadResult:
    """The samples of one file and the records skipped on the way."""

    path: str
    samples: list[Sample] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
    records: int = 0

    def summary(self) -> dict:
        return {
            "path": self.path,
            "records": self.records,
            "samples": len(self.samples),
            "bad_records": len(self.bad),
            "bad_examples": [str(b) for b in self.bad[:20]],
        }
