"""A turn's reasoning as a networkx graph: cues → emotion ← cause → goal → strategy → reply.

Edges say ``supports`` (this fed that decision) or ``revises`` (a critique made the
reply be rewritten). Written as GraphML or node-link JSON for other tools.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from empathygraph.trace.replay import TraceTurn, decisions


def _add(graph: nx.DiGraph, node: str, kind: str, text: str, step: str) -> str:
    graph.add_node(node, kind=kind, label=f"{kind}: {text}"[:80], text=text, step=step)
    return node


def reasoning_graph(turn: TraceTurn) -> nx.DiGraph:
    """The decisions of one turn and how they lead to one another.

    Nodes carry ``kind`` (cue, emotion, cause, goal, strategy, reply, critique),
    ``text``, ``label`` and the ``step`` that made them; edges carry ``relation``.
    """
    graph = nx.DiGraph(session_id=turn.session_id, turn_index=turn.turn_index)
    cues = []
    for step in turn.steps:
        if step.kind == "tool":
            for index, (label, value) in enumerate(decisions(step)):
                cues.append(_add(graph, f"cue:{step.step}:{index}", "cue", f"{label}: {value}", step.step))
    perception = turn.last("perception")
    if perception is not None:
        reading = _add(graph, "perception", "perception", str(perception.output.get("reading", "")), "perception")
        for cue in cues:
            graph.add_edge(cue, reading, relation="supports")
        cues = [reading]
    emotion_step, plan_step = turn.last("emotion_cause"), turn.last("empathy_strategy")
    emotion = None
    if emotion_step is not None:
        out = emotion_step.output
        emotion = _add(graph, "emotion", "emotion", f"{out.get('emotion')} ({out.get('coarse')})", "emotion_cause")
        for cue in cues:
            graph.add_edge(cue, emotion, relation="supports")
        for index, cause in enumerate(out.get("causes", [])):
            graph.add_edge(_add(graph, f"cause:{index}", "cause", cause, "emotion_cause"), emotion, relation="supports")
    strategy = None
    if plan_step is not None:
        goal = _add(graph, "goal", "goal", str(plan_step.output.get("goal", "")), "empathy_strategy")
        strategy = _add(graph, "strategy", "strategy", str(plan_step.output.get("strategy", "")), "empathy_strategy")
        if emotion:
            graph.add_edge(emotion, goal, relation="supports")
        graph.add_edge(goal, strategy, relation="supports")
    _add_replies(graph, turn, strategy or emotion)
    return graph


def _add_replies(graph: nx.DiGraph, turn: TraceTurn, basis: str | None) -> None:
    """Each draft of the reply; an accepting critique supports it, a rejecting one revises it."""
    draft: str | None = None
    critique: str | None = None
    for step in turn.steps:
        if step.step in ("response", "crisis_protocol"):
            reply = _add(graph, f"reply:{step.round}", "reply", str(step.output.get("text", "")), step.step)
            if basis:
                graph.add_edge(basis, reply, relation="supports")
            if draft and critique:
                graph.add_edge(draft, reply, relation="revises")
                graph.add_edge(critique, reply, relation="revises")
            draft, critique = reply, None
        elif step.step == "reflection" and draft:
            out = step.output
            text = f"{out.get('verdict')}: {'; '.join(out.get('issues', []))}".rstrip(": ")
            critique = _add(graph, f"critique:{step.round}", "critique", text, "reflection")
            if out.get("verdict") == "accept":
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
