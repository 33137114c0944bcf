"""The default multimodal empathetic response graph, and the API to change it.

    begin_turn -> [listen | look] -> read -> perception -> emotion_cause
        -> (risk?) crisis_protocol ----------------------------> render -> remember
        -> (else)  empathy_strategy -> response -> reflection -> render
                                          ^------- revise -------'

A Python user replaces an agent by name (``nodes={"response": my_node}``) or adds
one after another (``insert_after={"emotion_cause": ("humor_check", fn)}``).
"""

from __future__ import annotations

import inspect
import pathlib
import sqlite3
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from empathygraph import schemas
from empathygraph import state as state_module
from empathygraph.agents.crisis import crisis_protocol_node
from empathygraph.agents.emotion_cause import emotion_cause_node
from empathygraph.agents.empathy_strategy import empathy_strategy_node
from empathygraph.agents.perception import perception_node
from empathygraph.agents.reflection import reflection_node, route_after_reflection
from empathygraph.agents.response import response_node
from empathygraph.config import Config
from empathygraph.context import RunContext
from empathygraph.graphs.lifecycle import begin_turn_node, remember_node, render_node
from empathygraph.graphs.sensing import listen_node, look_node, read_node, route_senses
from empathygraph.state import MergInput, MergOutput, MergState
from empathygraph.trace import records

Node = Callable[..., dict]

AGENTS: dict[str, Node] = {
    "perception": perception_node,
    "emotion_cause": emotion_cause_node,
    "empathy_strategy": empathy_strategy_node,
    "response": response_node,
    "reflection": reflection_node,
    "crisis_protocol": crisis_protocol_node,
}
_FIXED: dict[str, Node] = {
    "begin_turn": begin_turn_node,
    "listen": listen_node,
    "look": look_node,
    "read": read_node,
    "render": render_node,
    "remember": remember_node,
}
# Plain edges of the default graph; routers are wired separately below.
_EDGES: list[tuple[str, str]] = [
    ("listen", "read"),
    ("look", "read"),
    ("read", "perception"),
    ("perception", "emotion_cause"),
    ("empathy_strategy", "response"),
    ("response", "reflection"),
    ("crisis_protocol", "render"),
    ("render", "remember"),
    ("remember", END),
]


def route_after_emotion(state: MergState) -> Literal["crisis_protocol", "empathy_strategy"]:
    """Risk disclosed: the crisis protocol answers; otherwise plan a reply."""
    perception = state.get("perception")
    at_risk = perception is not None and perception.safety.at_risk
    return "crisis_protocol" if at_risk else "empathy_strategy"


def session_serializer() -> JsonPlusSerializer:
    """Checkpoint serializer that may rebuild exactly the project's own state types."""
    allowed: list[type] = [pathlib.PosixPath, pathlib.WindowsPath]
    for module in (schemas, state_module, records):
        allowed += [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, BaseModel | Enum) and obj.__module__ == module.__name__
        ]
    return JsonPlusSerializer(allowed_msgpack_modules=allowed)


def open_checkpointer(config: Config) -> BaseCheckpointSaver:
    """The session store: a SQLite file by default, in memory for ':memory:'."""
    path = config.session_db()
    if path == ":memory:":
        return InMemorySaver(serde=session_serializer())
    from langgraph.checkpoint.sqlite import SqliteSaver

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False), serde=session_serializer())


def build_graph(
    config: Config | None = None,
    *,
    nodes: Mapping[str, Node] | None = None,
    insert_after: Mapping[str, tuple[str, Node]] | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
) -> CompiledStateGraph:
    """Assemble and compile the MERG graph.

    Args:
        config: run configuration (only the session store is read here; the rest
            travels in the ``RunContext`` at run time).
        nodes: replacements for agents by name (see ``AGENTS``).
        insert_after: ``{existing: (new_name, node)}`` adds ``new_name`` right after
            ``existing``; it takes over ``existing``'s outgoing edges and routes.
        checkpointer: session store; default from ``config`` (SQLite file).

    Returns:
        The compiled graph. Invoke it with ``{"session_id", "turn"}``, a thread id in
        ``config["configurable"]`` and ``context=RunContext(...)``.
    """
    config = config or Config()
    unknown = set(nodes or {}) - set(AGENTS)
    if unknown:
        raise ValueError(f"unknown agents to replace: {sorted(unknown)} (known: {sorted(AGENTS)})")
    builder = StateGraph(MergState, context_schema=RunContext, input_schema=MergInput, output_schema=MergOutput)
    for name, node in {**_FIXED, **AGENTS, **(nodes or {})}.items():
        builder.add_node(name, node)
    edges = list(_EDGES)
    # Each router hangs off one node; inserting after that node moves the router to the new node.
    routers: dict[str, tuple[Callable, list[str]]] = {
        "begin_turn": (route_senses, ["listen", "look", "read"]),
        "emotion_cause": (route_after_emotion, ["crisis_protocol", "empathy_strategy"]),
        "reflection": (route_after_reflection, ["response", "render"]),
    }
    for existing, (new_name, node) in (insert_after or {}).items():
        if existing not in {**_FIXED, **AGENTS}:
            raise ValueError(f"cannot insert after unknown node '{existing}'")
        builder.add_node(new_name, node)
        edges = [(new_name if src == existing else src, dst) for src, dst in edges]
        if existing in routers:
            routers[new_name] = routers.pop(existing)
        edges.append((existing, new_name))
    builder.add_edge(START, "begin_turn")
    for src, dst in edges:
        builder.add_edge(src, dst)
    for src, (router, targets) in routers.items():
        builder.add_conditional_edges(src, router, targets)
    return builder.compile(checkpointer=checkpointer if checkpointer is not None else open_checkpointer(config))
