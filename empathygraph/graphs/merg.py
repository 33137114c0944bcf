"""The default multimodal empathetic response graph, and the API to change it.

    begin_turn -> [listen | look] -> read -> perception -> emotion_cause
        -> (risk?) crisis_protocol ----------------------------> render -> remember
        -> (else)  empathy_strategy -> response -> reflection -> render
                                          ^------- revise -------'

The nodes, edges and routes come from the step registry (``graphs/registry.py``): each
step's ``AgentSpec`` says where the graph goes after it. A Python user replaces an agent
by name (``nodes={"response": my_node}``) or adds one after another
(``insert_after={"emotion_cause": ("humor_check", fn)}``, or an ``AgentSpec`` whose output
gets a state field of its own).
"""

from __future__ import annotations

import inspect
import pathlib
import sqlite3
import typing
from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Any, TypedDict

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from empathygraph import schemas
from empathygraph import state as state_module
from empathygraph.agents.spec import AgentSpec, Node, Route
from empathygraph.config import Config, is_postgres_url
from empathygraph.context import RunContext
from empathygraph.graphs.lifecycle import begin_turn
from empathygraph.graphs.registry import AGENTS, STEPS
from empathygraph.state import MergInput, MergOutput, MergState
from empathygraph.trace import records

__all__ = ["AGENTS", "build_graph", "keep_latest", "open_checkpointer", "session_serializer"]


def session_serializer(types: Sequence[type] = ()) -> JsonPlusSerializer:
    """Checkpoint serializer that may rebuild exactly the project's own state types (and ``types``)."""
    allowed: list[type] = [pathlib.PosixPath, pathlib.WindowsPath, *types]
    for module in (schemas, state_module, records):
        allowed += [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, BaseModel | Enum) and obj.__module__ == module.__name__
        ]
    return JsonPlusSerializer(allowed_msgpack_modules=allowed)


# How long a writer waits for another thread or process to finish its write before failing.
BUSY_TIMEOUT_S = 60.0


def connect_sessions(path: str) -> sqlite3.Connection:
    """A connection to a session store that many threads and processes share.

    Write-ahead logging lets readers go on while one writer writes, and a writer waits up to
    ``BUSY_TIMEOUT_S`` for another instead of failing with "database is locked".
    ``synchronous=NORMAL`` syncs at WAL checkpoints, not every commit: a killed process loses
    nothing committed (only an operating-system crash or power cut can lose the last commits),
    and a turn's per-step checkpoints cost about a millisecond each instead of a disk flush.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def open_checkpointer(config: Config, types: Sequence[type] = ()) -> BaseCheckpointSaver:
    """The session store: a SQLite file by default, in memory for ':memory:', PostgreSQL for a
    ``postgresql://`` URL (``types``: more state types)."""
    path = config.session_db()
    if path == ":memory:":
        return InMemorySaver(serde=session_serializer(types))
    if is_postgres_url(path):
        from empathygraph.graphs.postgres_sessions import open_postgres

        return open_postgres(path, session_serializer(types))
    from langgraph.checkpoint.sqlite import SqliteSaver

    return SqliteSaver(connect_sessions(path), serde=session_serializer(types))


def keep_latest(checkpointer: BaseCheckpointSaver, session_id: str) -> None:
    """Drop a session's checkpoints older than its latest one, once a turn has finished.

    A checkpoint after every step makes a turn resumable, and each holds the whole state;
    kept forever they would grow a session that runs for days by a dozen full copies of its
    history a turn (and keep every intermediate prompt). The latest holds all a session needs.
    A store that cannot prune (the in-memory one) keeps everything.
    """
    from langgraph.checkpoint.sqlite import SqliteSaver

    if isinstance(checkpointer, SqliteSaver):
        latest = "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '')"
        with checkpointer.cursor() as cursor:
            for table in ("writes", "checkpoints"):
                cursor.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = '' "
                               f"AND checkpoint_id < {latest}", (session_id, session_id))
        return
    try:
        checkpointer.prune([session_id], strategy="keep_latest")
    except NotImplementedError:
        pass


def _with_fields(base: type, fields: Mapping[str, Any]) -> type:
    """``base`` (a TypedDict) with more keys; ``base`` itself when there are none."""
    if not fields:
        return base
    return TypedDict(base.__name__, {**typing.get_type_hints(base, include_extras=True), **fields})  # type: ignore[operator]


def _insert(specs: dict[str, AgentSpec], existing: str, new: AgentSpec) -> None:
    """Put ``new`` right after ``existing``: it takes over ``existing``'s edge or route."""
    if existing not in specs:
        raise ValueError(f"cannot insert after unknown node '{existing}'")
    specs[new.name] = replace(new, then=specs[existing].then, after=None)
    specs[existing] = replace(specs[existing], then=new.name)


def build_graph(
    config: Config | None = None,
    *,
    nodes: Mapping[str, Node] | None = None,
    insert_after: Mapping[str, tuple[str, Node] | AgentSpec] | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
    steps: Sequence[AgentSpec] | None = None,
) -> CompiledStateGraph:
    """Assemble and compile the MERG graph.

    Args:
        config: run configuration (only the session store is read here; the rest
            travels in the ``RunContext`` at run time).
        nodes: replacements for agents by name (see ``AGENTS``).
        insert_after: ``{existing: (new_name, node)}`` or ``{existing: AgentSpec}`` adds a
            step right after ``existing``; it takes over ``existing``'s outgoing edge or route.
            A spec that ``writes`` a field the state lacks gets that field.
        checkpointer: session store; default from ``config`` (SQLite file).
        steps: the steps (default: the registry, ``graphs.registry.STEPS``); a spec with
            ``after`` is placed as ``insert_after`` would place it.

    Returns:
        The compiled graph. Invoke it with ``{"session_id", "turn"}``, a thread id in
        ``config["configurable"]`` and ``context=RunContext(...)``.
    """
    config = config or Config()
    steps = STEPS if steps is None else steps
    specs = {spec.name: spec for spec in steps if spec.after is None}
    agents = {name for name, spec in specs.items() if not spec.fixed}
    unknown = set(nodes or {}) - agents
    if unknown:
        raise ValueError(f"unknown agents to replace: {sorted(unknown)} (known: {sorted(agents)})")
    for name, node in (nodes or {}).items():
        specs[name] = replace(specs[name], node=node)
    added = [(spec.after, spec) for spec in steps if spec.after is not None]
    for existing, new in (insert_after or {}).items():
        added.append((existing, new if isinstance(new, AgentSpec) else AgentSpec(name=new[0], label=new[0], node=new[1])))
    for existing, spec in added:
        _insert(specs, existing, spec)
    # The turn opens by clearing what every step of this graph owns.
    resets: dict[str, Any] = {}
    for spec in specs.values():
        resets.update(spec.per_turn())
    specs["begin_turn"] = replace(specs["begin_turn"], node=begin_turn(resets))

    hints = typing.get_type_hints(MergState)
    fields = {spec.writes: spec.output | None for spec in specs.values() if spec.writes and spec.writes not in hints}
    state_schema = _with_fields(MergState, fields)
    builder = StateGraph(state_schema, context_schema=RunContext, input_schema=MergInput,
                         output_schema=_with_fields(MergOutput, fields))
    # A node typed ``state: MergState`` would otherwise see only MergState's keys, not the added ones.
    node_input = {"input_schema": state_schema} if fields else {}
    for spec in specs.values():
        builder.add_node(spec.name, spec.node, **node_input)
    builder.add_edge(START, "begin_turn")
    for spec in specs.values():
        if isinstance(spec.then, Route):
            builder.add_conditional_edges(spec.name, spec.then.router, list(spec.then.targets))
        elif spec.then is not None:
            builder.add_edge(spec.name, spec.then)
    if checkpointer is None:
        checkpointer = open_checkpointer(config, [spec.output for spec in specs.values() if spec.writes and spec.output])
    return builder.compile(checkpointer=checkpointer)
