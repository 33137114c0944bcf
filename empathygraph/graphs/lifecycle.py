"""Nodes that open and close a turn: reset per-turn state, render media, remember the turn."""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from empathygraph.context import RunContext
from empathygraph.state import HistoryEntry, MergState
from empathygraph.trace.records import StepRecord

# Sending None to a reducer key clears it; plain keys are overwritten.
_PER_TURN_RESET = {
    "cues": None,
    "skipped": None,
    "steps": None,
    "media": None,
    "critiques": None,
    "perception": None,
    "emotion": None,
    "empathy": None,
    "response": None,
    "critique": None,
    "chat": None,
    "rounds": 0,
}


def begin_turn_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Clear the previous turn's working state; keep the session's history and avatar."""
    turn = state["turn"]
    profile = turn.profile or state.get("profile") or runtime.context.config.profile
    return {**_PER_TURN_RESET, "turn_index": len(state.get("history", [])), "profile": profile}


def render_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Voice and animate the reply; a failed generator degrades the turn, it never ends it."""
    renderer, out_dir = runtime.context.renderer, runtime.context.out_dir
    if renderer is None or out_dir is None:
        return {}
    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        results = renderer.render(state["response"], out_dir)
    except Exception as exc:  # a generator bug must not cost the person their reply
        record = StepRecord(step="render", kind="generator", latency_s=time.perf_counter() - started,
                            error=f"{type(exc).__name__}: {exc}", notes=["no media this turn"])
        return {"steps": [record]}
    media: dict[str, str] = {}
    steps = []
    for result in results:
        media.update({name: str(path) for name, path in result.files.items()})
        steps.append(StepRecord(
            step=f"render:{result.backend}",
            kind="generator",
            latency_s=result.seconds,
            input={"backend": result.backend},
            output={
                "files": {name: str(path) for name, path in result.files.items()},
                "settings": result.settings,
                "media_seconds": result.media_seconds,
                "first_chunk_seconds": result.first_chunk_seconds,
            },
            error=result.error,
            notes=[f"{result.backend} failed; the turn goes on without it"] if result.error else [],
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
        risk=perception.safety.category,
    )
    return {"history": [entry]}
