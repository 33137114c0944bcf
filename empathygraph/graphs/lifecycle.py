"""Nodes that open and close a turn: reset per-turn state, render media, remember the turn."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langgraph.graph import END
from langgraph.runtime import Runtime
from pydantic import Field

from empathygraph.agents.crisis_words import recalled
from empathygraph.agents.spec import AgentSpec, Node, Route
from empathygraph.context import RunContext
from empathygraph.graphs.sensing import SENSES, route_senses
from empathygraph.schemas import Decisions, RiskCategory, StepOutput
from empathygraph.state import HistoryEntry, MergState
from empathygraph.trace.records import StepRecord

# What the frame of a turn owns: the trace and the agents' chat. Each step declares the rest
# (``AgentSpec.per_turn``); sending None to a reducer key clears it, plain keys are overwritten.
FRAME_RESETS: dict[str, Any] = {"steps": None, "chat": None}


def begin_turn(resets: Mapping[str, Any]) -> Node:
    """The node that opens a turn: it clears ``resets`` (what the graph's steps own per turn)."""

    def begin_turn_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
        """Clear the previous turn's working state; keep the session's history and avatar."""
        turn = state["turn"]
        profile = turn.profile or state.get("profile") or runtime.context.config.profile
        return {**resets, "turn_index": len(state.get("history", [])), "profile": profile}

    return begin_turn_node


class RenderReport(StepOutput):
    """What the render step wrote: one medium's files and the settings that shaped them."""

    files: dict[str, str] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    media_seconds: float | None = None
    first_chunk_seconds: float | None = None

    def decisions(self) -> Decisions:
        return list(self.files.items())

    def headline(self) -> str:
        return ", ".join(self.files)


def render_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Voice and animate the reply; a failed generator degrades the turn, it never ends it."""
    renderer, out_dir = runtime.context.renderer, runtime.context.out_dir
    if renderer is None or out_dir is None:
        return {}
    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        results = renderer.render(state["response"], out_dir)
    except Exception as exc:  # noqa: BLE001 - a generator bug must not cost the person their reply
        record = StepRecord(step="render", kind="generator", latency_s=time.perf_counter() - started,
                            error=f"{type(exc).__name__}: {exc}", notes=["no media this turn"])
        return {"steps": [record]}
    media: dict[str, str] = {}
    steps = []
    root = out_dir.resolve()
    for result in results:
        # A backend may write only into the turn's folder; what it wrote elsewhere is not offered.
        files = {name: str(path) for name, path in result.files.items() if Path(path).resolve().is_relative_to(root)}
        strays = sorted(set(map(str, result.files.values())) - set(files.values()))
        error = result.error or (f"wrote outside the output folder {out_dir}: {', '.join(strays)}" if strays else None)
        media.update(files)
        steps.append(StepRecord(
            step=f"render:{result.backend}",
            kind="generator",
            latency_s=result.seconds,
            input={"backend": result.backend},
            output={
                "files": files,
                "settings": result.settings,
                "media_seconds": result.media_seconds,
                "first_chunk_seconds": result.first_chunk_seconds,
            },
            error=error,
            notes=[f"{result.backend} failed; the turn goes on without it"] if error else [],
        ))
    return {"media": media, "steps": steps}


def remember_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Add the finished turn to the session's emotional history."""
    emotion, empathy, plan, perception = state["emotion"], state["empathy"], state["response"], state["perception"]
    entry = HistoryEntry(
        turn_index=state["turn_index"],
        user=perception.text,
        reply=plan.text,
        emotion=emotion.emotion,
        coarse=emotion.coarse,
        valence=emotion.valence,
        arousal=emotion.arousal,
        strategy=empathy.strategy,
        risk=state["safety"].category if state["safety"] is not None else RiskCategory.NONE,
        risk_tentative=state["safety"] is not None and state["safety"].tentative,
        recalled=recalled(plan.text, plan.safety_protocol),
    )
    return {"history": [entry]}


# ``build_graph`` gives the graph its own begin_turn node, clearing what each of its steps resets.
BEGIN_TURN = AgentSpec(name="begin_turn", label="turn opened", node=begin_turn(FRAME_RESETS), kind=None,
                       resets=FRAME_RESETS, then=Route(route_senses, SENSES), live="hidden", fixed=True)
RENDER = AgentSpec(name="render", label="voice and avatar", node=render_node, kind="generator", output=RenderReport,
                   resets={"media": None}, then="remember", live="if-recorded", fixed=True)
REMEMBER = AgentSpec(name="remember", label="remembered the turn", node=remember_node, kind=None, then=END,
                     live="hidden", fixed=True)
