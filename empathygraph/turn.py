"""One finished turn: what a live run returns and what a trace reads back as, the same model.

``TurnResult.from_state`` builds it from the graph's state when a turn ends
(``Empathizer.respond``); ``TurnResult.from_steps`` builds it from the turn's step
records alone (``trace.replay.group_turns``), reading each record's typed output through
the step registry, so a trace written on another machine replays without its models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from empathygraph.agents.spec import AgentSpec
from empathygraph.files import write_text
from empathygraph.graphs.registry import STEPS, view, writers
from empathygraph.paths import default_home
from empathygraph.schemas import (
    Critique,
    EmotionAnalysis,
    EmpathyPlan,
    PerceptionReport,
    ResponsePlan,
    SafetyAssessment,
)
from empathygraph.trace.records import StepRecord, TokenUsage
from empathygraph.trace.redact import Redactor, redaction_key
from empathygraph.trace.store import write_trace

T = TypeVar("T", bound=BaseModel)

# The state fields a turn's result carries, and the result's name for each.
RESULT_FIELDS = {"perception": "perception", "emotion": "emotion", "safety": "safety", "empathy": "empathy",
                 "response": "plan"}


class TurnResult(BaseModel):
    """Everything one turn produced: the plan, the reasoning behind it and the media.

    A turn read back from a trace may lack what its records do not hold (a crisis turn's
    plan of empathy, the backbone's name, a step the run never reached).
    """

    session_id: str
    turn_index: int
    perception: PerceptionReport | None = None
    emotion: EmotionAnalysis | None = None
    safety: SafetyAssessment | None = None
    empathy: EmpathyPlan | None = None
    plan: ResponsePlan | None = None
    critiques: list[Critique] = Field(default_factory=list)
    media: dict[str, str] = Field(default_factory=dict)
    skipped: list[str] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list, exclude=True)
    seconds: float = 0.0
    backbone: str = ""
    redact: bool = Field(default=False, exclude=True, description="write it with free text hashed (trace.redact)")

    @classmethod
    def from_state(cls, values: Mapping[str, Any], session_id: str, *, seconds: float, backbone: str) -> TurnResult:
        """The result of the turn that just ended, from the graph's state."""
        steps = [
            step.model_copy(update={"session_id": session_id, "turn_index": values["turn_index"]})
            for step in values.get("steps", [])
        ]
        return cls(
            session_id=session_id,
            turn_index=values["turn_index"],
            **{name: values[key] for key, name in RESULT_FIELDS.items()},
            critiques=values.get("critiques", []),
            media=values.get("media", {}),
            skipped=values.get("skipped", []),
            steps=steps,
            seconds=seconds,
            backbone=backbone,
        )

    @classmethod
    def from_steps(cls, session_id: str, turn_index: int, steps: Iterable[StepRecord]) -> TurnResult:
        """A turn read back from its step records (in the order they finished)."""
        turn = cls(session_id=session_id, turn_index=turn_index, steps=list(steps))
        outputs: dict[str, Any] = {}
        for record in turn.steps:
            if record.kind == "generator":
                turn.media.update(record.output.get("files") or {})
            spec = view(record.step)
            typed = spec.read(record.output) if isinstance(spec, AgentSpec) else None
            if typed is None:
                continue
            if spec.writes in RESULT_FIELDS:
                outputs[RESULT_FIELDS[spec.writes]] = typed
            elif spec.writes == "critique":
                turn.critiques.append(typed)
        for name, value in outputs.items():
            setattr(turn, name, value)
        turn.skipped = list(turn.perception.skipped) if turn.perception else []
        turn.seconds = turn.latency_s
        return turn

    @property
    def reply(self) -> str:
        return self.plan.text if self.plan is not None else ""

    @property
    def user_text(self) -> str:
        """What the person said: the words the perception agent read."""
        return self.perception.text if self.perception is not None else ""

    @property
    def key(self) -> tuple[str, int]:
        return self.session_id, self.turn_index

    @property
    def latency_s(self) -> float:
        """Seconds of steps (the steps' latencies summed; branches that ran side by side count twice)."""
        return sum(step.latency_s for step in self.steps)

    @property
    def tokens(self) -> TokenUsage:
        return TokenUsage.sum(step.tokens for step in self.steps)

    @property
    def llm_calls(self) -> int:
        return sum(len(step.attempts) for step in self.steps)

    @property
    def retries(self) -> int:
        return sum(step.retries for step in self.steps)

    @property
    def inputs(self) -> dict[str, str]:
        """The media the person gave this turn (what a sense reads → path)."""
        reads = {spec.name: spec.reads for spec in STEPS if spec.reads}
        return {reads[s.step]: str(s.input["path"]) for s in self.steps if s.step in reads and "path" in s.input}

    def last(self, step: str) -> StepRecord | None:
        """The last record of ``step`` (a revised reply replaces the first draft)."""
        found = [record for record in self.steps if record.step == step]
        return found[-1] if found else None

    def writing(self, field: str) -> list[StepRecord]:
        """The records of the steps whose output goes to the state field ``field``, in order."""
        names = writers(field)
        return [record for record in self.steps if record.step in names]

    def output(self, schema: type[T]) -> T | None:
        """The last typed output of a step whose output schema is ``schema`` (e.g. the emotion fusion's)."""
        for record in reversed(self.steps):
            found = view(record.step)
            if found is not None and found.output is schema and (typed := found.read(record.output)) is not None:
                return typed  # type: ignore[return-value]
        return None

    def write(self, out_dir: Path, *, append_trace: bool = False) -> dict[str, Path]:
        """Write ``reply.json`` and ``trace.jsonl`` into ``out_dir`` (each complete or not at all).

        With ``redact`` the files hold labels and numbers but no words or paths (``trace.redact``).
        """
        turn = Redactor(redaction_key(default_home())).model(self) if self.redact else self
        reply = write_text(out_dir / "reply.json", turn.model_dump_json(indent=2))
        trace = write_trace(out_dir / "trace.jsonl", turn.steps, append=append_trace)  # type: ignore[attr-defined]
        return {"reply": reply, "trace": trace}
