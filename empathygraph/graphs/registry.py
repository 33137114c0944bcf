"""The steps of the default graph: the one registry the framework reads.

Every step is declared once, beside its code, as an ``AgentSpec`` (``agents/spec.py``).
This module lists them; the graph (``merg.build_graph``), the turn's result
(``turn.TurnResult``), the live display, trace replay, the HTML report and the reasoning
graph all read this list instead of naming steps themselves.

Adding an agent: write its module (copy ``agents/empathy_strategy.py``: a node, its output
schema, ``SPEC = AgentSpec(...)`` with ``after=`` the step it follows) and add ``SPEC`` to
``AGENT_SPECS`` below; an agent in another package calls ``register(SPEC)`` instead.
"""

from __future__ import annotations

from empathygraph.agents import crisis, emotion_cause, empathy_strategy, perception, reflection, response, risk
from empathygraph.agents.spec import AgentSpec, Node, StepView
from empathygraph.graphs import lifecycle, sensing

# The agents, in the order they reason (a new agent: one more line).
AGENT_SPECS: tuple[AgentSpec, ...] = (
    perception.SPEC,
    emotion_cause.SPEC,
    risk.SPEC,
    empathy_strategy.SPEC,
    response.SPEC,
    reflection.SPEC,
    crisis.STAY_CAREFUL,
    crisis.SPEC,
)
# The frame around them: open the turn, sense, read; render and remember.
FRAME: tuple[AgentSpec, ...] = (
    lifecycle.BEGIN_TURN,
    sensing.LISTEN,
    sensing.LOOK,
    sensing.READ,
    lifecycle.RENDER,
    lifecycle.REMEMBER,
)
# The registry: the frame, the agents, and any step a package adds with ``register``.
STEPS: list[AgentSpec] = [*FRAME, *AGENT_SPECS]
# How each step's records read back, by name (a step's substeps included).
VIEWS: dict[str, StepView] = {}
# The agents a user may replace by name, and their nodes.
AGENTS: dict[str, Node] = {}


def _add_views(spec: AgentSpec) -> None:
    for found in (spec, *spec.substeps):
        if found.name in VIEWS:
            raise ValueError(f"a step named '{found.name}' is registered already")
        VIEWS[found.name] = found
    if not spec.fixed:
        AGENTS[spec.name] = spec.node


for _spec in STEPS:
    _add_views(_spec)


def register(spec: AgentSpec) -> None:
    """Add a step to the default graph and to every view of it (give it ``after=``, the step it follows).

    For an agent that lives outside this package; one of the package's own is listed in
    ``AGENT_SPECS`` instead.
    """
    _add_views(spec)
    STEPS.append(spec)


def view(step: str) -> StepView | None:
    """How records of ``step`` read back (``render:piper`` is a ``render`` record); None for a step unknown here."""
    return VIEWS.get(step.split(":")[0])


def writers(field: str) -> frozenset[str]:
    """The steps whose output goes to the state field ``field``."""
    return frozenset(spec.name for spec in STEPS if spec.writes == field)


def senses() -> list[AgentSpec]:
    """The perception tools' steps, in graph order (``read`` last)."""
    return [spec for spec in STEPS if spec.kind == "tool"]


def reply_fields() -> dict[str, tuple[str, ...]]:
    """The steps whose LLM answer carries the reply (it streams to the person), and the fields that hold it."""
    return {spec.name: spec.reply_fields for spec in STEPS if spec.reply_fields}
