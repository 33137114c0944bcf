"""A turn's reasoning as a networkx graph: cues → emotion ← cause → goal → strategy → reply.

Edges say ``supports`` (this fed that decision) or ``revises`` (a critique made the
reply be rewritten). Written as GraphML or node-link JSON for other tools.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import networkx as nx
from pydantic import BaseModel

from empathygraph.schemas import Critique, EmotionAnalysis, EmpathyPlan, PerceptionReport, ResponsePlan
from empathygraph.trace.replay import decisions, typed_output
from empathygraph.turn import TurnResult

T = TypeVar("T", bound=BaseModel)


def _add(graph: nx.DiGraph, node: str, kind: str, text: str, step: str) -> str:
    graph.add_node(node, kind=kind, label=f"{kind}: {text}"[:80], text=text, step=step)
    return node


def reasoning_graph(turn: TurnResult) -> nx.DiGraph:
    """The decisions of one turn and how they lead to one another.

    Nodes carry ``kind`` (cue, emotion, cause, goal, strategy, reply, critique),
    ``text``, ``label`` and the ``step`` that made them; edges carry ``relation``.
    Steps are found by what they decide (their output's schema), not by name.
    """
    graph = nx.DiGraph(session_id=turn.session_id, turn_index=turn.turn_index)
    cues = []
    for step in turn.steps:
        if step.kind == "tool":
            for index, (label, value) in enumerate(decisions(step)):
                cues.append(_add(graph, f"cue:{step.step}:{index}", "cue", f"{label}: {value}", step.step))
    perception, emotion_step, plan_step = (_last(turn, schema) for schema in (PerceptionReport, EmotionAnalysis, EmpathyPlan))
    if perception is not None:
        step, report = perception
        reading = _add(graph, "perception", "perception", report.reading, step)
        for cue in cues:
            graph.add_edge(cue, reading, relation="supports")
        cues = [reading]
    emotion = None
    if emotion_step is not None:
        step, analysis = emotion_step
        emotion = _add(graph, "emotion", "emotion", f"{analysis.emotion.value} ({analysis.coarse.value})", step)
        for cue in cues:
            graph.add_edge(cue, emotion, relation="supports")
        for index, cause in enumerate(analysis.causes):
            graph.add_edge(_add(graph, f"cause:{index}", "cause", cause, step), emotion, relation="supports")
    strategy = None
    if plan_step is not None:
        step, plan = plan_step
        goal = _add(graph, "goal", "goal", plan.goal, step)
        strategy = _add(graph, "strategy", "strategy", plan.strategy.value, step)
        if emotion:
            graph.add_edge(emotion, goal, relation="supports")
        graph.add_edge(goal, strategy, relation="supports")
    _add_replies(graph, turn, strategy or emotion)
    return graph


def _last(turn: TurnResult, schema: type[T]) -> tuple[str, T] | None:
    """The step name and typed output of the last record whose output is a ``schema``."""
    for record in reversed(turn.steps):
        if isinstance(typed := typed_output(record), schema):
            return record.step, typed
    return None


def _add_replies(graph: nx.DiGraph, turn: TurnResult, basis: str | None) -> None:
    """Each draft of the reply; an accepting critique supports it, a rejecting one revises it."""
    draft: str | None = None
    critique: str | None = None
    for step in turn.steps:
        typed = typed_output(step)
        if isinstance(typed, ResponsePlan):
            reply = _add(graph, f"reply:{step.round}", "reply", typed.text, step.step)
            if basis:
                graph.add_edge(basis, reply, relation="supports")
            if draft and critique:
                graph.add_edge(draft, reply, relation="revises")
                graph.add_edge(critique, reply, relation="revises")
            draft, critique = reply, None
        elif isinstance(typed, Critique) and draft:
            text = f"{typed.verdict}: {'; '.join(typed.issues)}".rstrip(": ")
            critique = _add(graph, f"critique:{step.round}", "critique", text, step.step)
            if typed.verdict == "accept":
                graph.add_edge(critique, draft, relation="supports")


def graph_json(graph: nx.DiGraph) -> dict[str, Any]:
    """Node-link JSON of a graph (``nodes`` and ``edges``)."""
    return nx.node_link_data(graph, edges="edges")


def write_graph(graph: nx.DiGraph, path: Path) -> Path:
    """Write ``graph`` as GraphML (``.graphml``) or node-link JSON (anything else)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".graphml":
        nx.write_graphml(graph, path)
    else:
        path.write_text(json.dumps(graph_json(graph), indent=2, ensure_ascii=False), encoding="utf-8")
    return path
