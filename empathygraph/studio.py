"""The MERG graph for LangGraph Studio (``langgraph dev``, see ``langgraph.json``).

The server gives the graph its own checkpointer and calls it without a
``RunContext`` (it cannot build a backbone), so this graph fills in the default
one built from ``EMPATHYGRAPH_CONFIG`` (a YAML path; default configuration
otherwise). Studio may pass ``{"overrides": ["backbone.model=fast"]}`` as context.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph

from empathygraph.config import Config, load_config
from empathygraph.context import RunContext
from empathygraph.graphs.merg import build_graph
from empathygraph.state import TurnInput


@cache
def _context(overrides: tuple[str, ...] = ()) -> RunContext:
    from empathygraph.session import Empathizer

    path = os.environ.get("EMPATHYGRAPH_CONFIG")
    config = load_config(Path(path) if path else None, list(overrides))
    return Empathizer(config, graph=build_graph(config, checkpointer=InMemorySaver())).context(None)


def studio_context(context: Any) -> RunContext:
    """The run context for a call: the caller's, or the default built once per overrides."""
    if isinstance(context, RunContext):
        return context
    overrides = tuple((context or {}).get("overrides", [])) if isinstance(context, dict) else ()
    return _context(overrides)


def studio_input(value: Any) -> Any:
    """Studio sends JSON: make its ``turn`` a ``TurnInput`` (other inputs pass through)."""
    if isinstance(value, dict) and isinstance(value.get("turn"), dict):
        return {**value, "turn": TurnInput.model_validate(value["turn"])}
    return value


class StudioGraph(CompiledStateGraph):
    """A compiled MERG graph that takes JSON input and runs with the default context when given none."""

    def stream(self, input: Any, config: Any = None, *, context: Any = None, **kwargs: Any):
        return super().stream(studio_input(input), config, context=studio_context(context), **kwargs)

    def astream(self, input: Any, config: Any = None, *, context: Any = None, **kwargs: Any):
        return super().astream(studio_input(input), config, context=studio_context(context), **kwargs)


def make_graph(config: Config | None = None) -> StudioGraph:
    """The MERG graph as Studio runs it (the server supplies persistence)."""
    compiled = build_graph(config or Config(), checkpointer=InMemorySaver())
    compiled.__class__ = StudioGraph  # same object, with defaults for a context-less call
    return compiled


graph = make_graph()
