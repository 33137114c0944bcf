"""The steps of the default graph: the one registry the framework reads.

Every step is declared once, beside its code, as an ``AgentSpec`` (``agents/spec.py``).
This module lists them; the graph (``merg.build_graph``), the turn's result
(``turn.TurnResult``), the live display, trace replay, the HTML report and the reasoning
graph all read this list instead of naming steps themselves.

Adding an agent: write its module (copy ``agents/empathy_strategy.py``: a node, its output
schema, ``SPEC = AgentSpec(...)`` with ``after=`` the step it follows) and add ``SPEC`` to
``AGENT_SPECS`` below.
"""

from __future__ import annotations

from empathygraph.agents import crisis, emotion_cause, empathy_strategy, perception, reflection, response
from empathygraph.agents.spec import AgentSpec, StepView
from empathygraph.graphs import lifecycle, sensing

# The agents, in the order they reason (a new agent: one more line).
AGENT_SPECS: tuple[AgentSpec, ...] = (
    perception.SPEC,
    emotion_cause.SPEC,
    empathy_strategy.SPEC,
    response.SPEC,
    reflection.SPEC,
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
STEPS: tuple[AgentSpec, ...] = (*FRAME, *AGENT_SPECS)


def _views(steps: tuple[AgentSpec, ...]) -> dict[str, StepView]:
    views: dict[str, StepView] = {}
    for spec in steps:
        views[spec.name] = spec
        views.update({sub.name: sub for sub in spec.substeps})
    return views


VIEWS: dict[str, StepView] = _views(STEPS)
# The steps that write the reply (its text streams to the person as the LLM writes it).
REPLY_STEPS: frozenset[str] = frozenset(spec.name for spec in STEPS if spec.reply_fields)


def view(step: str) -> StepView | None:
    """How records of ``step`` read back (``render:piper`` is a ``render`` record); None for a step unknown here."""
    return VIEWS.get(step.split(":")[0])


def writers(field: str) -> frozenset[str]:
    """The steps whose output goes to the state field ``field``."""
    return frozenset(spec.name for spec in STEPS if spec.writes == field)


def senses() -> list[AgentSpec]:
    """The perception tools' steps, in graph order (``read`` last)."""
    return [spec for spec in STEPS if spec.kind == "tool"]
