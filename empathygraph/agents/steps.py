"""Build the trace record of an agent step from what it asked and got."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from empathygraph.agents.prompting import as_prompt_record
from empathygraph.agents.structured import Answer
from empathygraph.trace.records import StepRecord


def dump(model: BaseModel | None) -> dict[str, Any]:
    """A record as plain JSON data (empty for None)."""
    return model.model_dump(mode="json") if model is not None else {}


def agent_record(
    step: str,
    started: float,
    *,
    output: BaseModel | None,
    messages: list[BaseMessage] | None = None,
    answer: Answer | None = None,
    inputs: dict[str, Any] | None = None,
    fallback: str | None = None,
    round: int = 0,
    notes: list[str] | None = None,
    kind: str = "agent",
) -> StepRecord:
    """One agent step: its prompt, every LLM attempt, and the validated output."""
    record = StepRecord(
        step=step,
        kind=kind,
        round=round,
        latency_s=time.perf_counter() - started,
        input=inputs or {},
        output=dump(output),
        fallback=fallback,
        notes=notes or [],
    )
    if messages is not None:
        record.prompt = as_prompt_record(messages)
    if answer is not None:
        record.raw_output = answer.raw
        record.tokens = answer.tokens
        record.retries = answer.retries
        record.attempts = answer.attempts
        record.error = answer.error
    return record
