"""How a step of the graph is declared, once, beside its code.

An ``AgentSpec`` says everything the rest of the framework needs to know about a step:
its name and node function, where the default graph goes after it, the state field its
output goes to and the schema of that output, what it resets at the start of a turn,
and how people see it (a label, and how the live view shows it). The graph, the turn's
result, the live display, trace replay, the HTML report and the reasoning graph all read
these specs (``graphs/registry.py`` lists them), so none of them names a step itself.

A ``StepView`` is the reading half alone, for records that are not nodes of their own
(the emotion fusion's scoring call is recorded inside the emotion-cause node).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

Node = Callable[..., dict]
StepKind = Literal["agent", "tool", "router", "generator", "protocol"]
# How the live view shows a finished step: its line and headline; its line alone (an event
# shows the rest); its line only when it left a record; nothing.
LiveView = Literal["headline", "line", "if-recorded", "hidden"]


@dataclass(frozen=True)
class Route:
    """A conditional edge: ``router(state)`` names the next step(s), one of ``targets``."""

    router: Callable[..., Any]
    targets: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class StepView:
    """How one kind of step record is read back and shown.

    Attributes:
        name: the step's name in records (``render:piper`` is read as ``render``).
        label: what people see, e.g. "emotion-cause agent".
        output: the schema of the record's ``output`` (a ``schemas.StepOutput`` knows its
            headline and decisions); None reads it as plain values.
        live: how the live view shows the step when it finishes.
    """

    name: str
    label: str
    output: type[BaseModel] | None = None
    live: LiveView = "headline"

    def read(self, output: Mapping[str, Any]) -> BaseModel | None:
        """A record's output as the typed schema; None without one or when it does not validate."""
        if self.output is None or not output:
            return None
        try:
            return self.output.model_validate(output)
        except ValidationError:  # a hand-edited or older record: read as plain values instead
            return None


@dataclass(frozen=True, kw_only=True)
class AgentSpec(StepView):
    """A node of the graph: the agents, and the fixed steps (senses, render, remember) alike.

    Attributes:
        node: ``(state, runtime) -> dict`` of state updates.
        kind: what the step's records are (agent, tool, generator, protocol); None: it leaves none.
        writes: the state field its output goes to (its type is ``output``); None when it
            writes no output of its own.
        resets: other state it owns, and the value each key takes when a turn starts
            (``writes`` is reset to None without saying so).
        then: where the default graph goes next: a step name, a ``Route``, or ``END``.
        after: for a step added to the default graph: placed right after this one, taking
            over its outgoing edge or route (as ``build_graph(insert_after=...)`` does).
        reads: what a sense reads of the person's turn (``audio``, ``face``).
        reply_fields: the fields of its LLM answer that carry the reply, in reply order
            (streamed to the person as they are written).
        substeps: views of records the node writes under other names.
        fixed: part of the graph's frame; cannot be replaced by name.
    """

    node: Node
    kind: StepKind | None = "agent"
    writes: str | None = None
    resets: Mapping[str, Any] = field(default_factory=dict)
    then: str | Route | None = None
    after: str | None = None
    reads: str | None = None
    reply_fields: tuple[str, ...] = ()
    substeps: tuple[StepView, ...] = ()
    fixed: bool = False

    def per_turn(self) -> dict[str, Any]:
        """The state this step clears when a turn starts (``None`` empties a reducer's key)."""
        return {**({self.writes: None} if self.writes else {}), **self.resets}
