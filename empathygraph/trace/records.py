"""Typed step records: one per agent, tool or generator step of a turn."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

TRACE_VERSION = 1


class TokenUsage(BaseModel):
    """Tokens one step spent on the LLM."""

    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(prompt=self.prompt + other.prompt, completion=self.completion + other.completion)

    @classmethod
    def sum(cls, usages: Iterable[TokenUsage]) -> TokenUsage:
        """The total of several usages."""
        total = cls()
        for usage in usages:
            total = total + usage
        return total


class LLMAttempt(BaseModel):
    """One call to the LLM inside a step (the first try or a repair)."""

    raw: str
    error: str | None = None
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    latency_s: float = 0.0


class StepRecord(BaseModel):
    """What one step of the graph did, with enough detail to replay its reasoning.

    A step is an agent (LLM or rule-based), a perception tool, a router decision
    or a media generator.
    """

    model_config = ConfigDict(extra="ignore")

    version: int = TRACE_VERSION
    session_id: str = ""
    turn_index: int = 0
    step: str = Field(description="node name, e.g. 'emotion_cause'")
    kind: Literal["agent", "tool", "router", "generator", "protocol"]
    round: int = 0
    started_at: str = Field(default="", description="ISO time the step began (default: now minus latency_s)")
    latency_s: float = 0.0
    input: dict[str, Any] = Field(default_factory=dict)
    prompt: list[dict[str, str]] = Field(default_factory=list, description="chat messages sent")
    raw_output: str | None = None
    output: dict[str, Any] = Field(default_factory=dict, description="parsed, validated output")
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    retries: int = 0
    attempts: list[LLMAttempt] = Field(default_factory=list)
    fallback: str | None = Field(default=None, description="why a rule-based fallback was used")
    error: str | None = None
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _stamp_start(self) -> StepRecord:
        # Records are built when a step ends, with its latency known: the start is that far back.
        if not self.started_at:
            start = datetime.now(UTC) - timedelta(seconds=self.latency_s)
            self.started_at = start.isoformat(timespec="milliseconds")
        return self
