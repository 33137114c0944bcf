"""Build your own empathy graph: replace one agent and add another.

Run it (offline, on the embedded default model):

    .venv/bin/python examples/custom_graph.py "I finally finished my first marathon!"

What it changes in the default graph:
- ``gratitude_note``, a new rule-based step after ``emotion_cause``, declared by an
  ``AgentSpec``: for positive emotions it notes a celebration (its own state field, which
  every later agent can read), so the reply celebrates rather than consoles;
- ``response`` replaced by a wrapper that runs the stock response agent, then adds a
  gentle follow-up question when the reply asks nothing.

To make such an agent part of every graph, put its spec in ``AGENT_SPECS``
(``empathygraph/graphs/registry.py``) or call ``graphs.registry.register``; see
``docs/architecture.md``.
"""

from __future__ import annotations

import sys

from langgraph.runtime import Runtime

from empathygraph import Empathizer, MergState, RunContext, build_graph, load_config
from empathygraph.agents.response import response_node
from empathygraph.agents.spec import AgentSpec
from empathygraph.schemas import StepOutput


class Celebration(StepOutput):
    """Happy news worth celebrating: which emotion, how strongly."""

    emotion: str
    intensity: float


def gratitude_note(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Flag happy news, so the reply celebrates it."""
    emotion = state["emotion"]
    if emotion.valence > 0.3:
        return {"celebration": Celebration(emotion=emotion.emotion.value, intensity=emotion.intensity)}
    return {}


GRATITUDE_NOTE = AgentSpec(name="gratitude_note", label="gratitude note", node=gratitude_note,
                           writes="celebration", output=Celebration)


def response_with_follow_up(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """The stock response agent, plus an open question when its reply asks none."""
    update = response_node(state, runtime)
    plan = update["response"]
    if "?" not in plan.text:
        question = " What was the best part?" if state.get("celebration") else " How are you feeling now?"
        update["response"] = plan.model_copy(update={"text": plan.text + question})
    return update


def main(text: str) -> None:
    config = load_config(overrides=["sessions.db=:memory:", "generators.speech=none", "generators.avatar=none"])
    graph = build_graph(
        config,
        nodes={"response": response_with_follow_up},
        insert_after={"emotion_cause": GRATITUDE_NOTE},
    )
    result = Empathizer(config, graph=graph).respond(text)
    print(f"emotion:  {result.emotion.emotion.value} (valence {result.emotion.valence:+.1f})")
    print(f"strategy: {result.empathy.strategy.value}")
    print(f"reply:    {result.reply}")
    print("steps:    " + " -> ".join(step.step for step in result.steps))


if __name__ == "__main__":
    main(" ".join(sys.argv[1:]) or "I finally finished my first marathon!")
