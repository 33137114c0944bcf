"""Empathy-strategy agent: the Chain-of-Empathy goal to response and an ESConv strategy."""

from __future__ import annotations

import time

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.prompting import build_messages, words_of_turn
from empathygraph.agents.steps import agent_record
from empathygraph.agents.strategy_prior import default_prior
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.errors import StructuredOutputError
from empathygraph.schemas import EmpathyPlan, Strategy
from empathygraph.state import MergState

TASK = (
    'the plan. JSON: "goal" (what your reply should do for them, under 12 words), "strategy" (Question, '
    "Restatement or Paraphrasing, Reflection of feelings, Self-disclosure, Affirmation and Reassurance, "
    'Providing Suggestions, Information or Others), "rationale" (why, in 5 to 10 words).'
)

# Rationales run long; one cut here keeps its complete sentences.
MAX_TOKENS = 64


class StrategyDraft(BaseModel):
    """LLM output of the strategy step."""

    goal: str = Field(max_length=300)
    strategy: Strategy
    rationale: str = Field(max_length=300)


def _previous_strategies(state: MergState, count: int = 2) -> list[str]:
    return [entry.strategy.value for entry in state.get("history", [])[-count:]]


def prior_hint(state: MergState) -> tuple[str, list[tuple[str, float]]]:
    """The trained strategy prior's top three for this turn, as a sentence for the task and as data."""
    prior = default_prior()
    history = state.get("history", [])
    if prior is None:
        return "", []
    previous = history[-1].strategy if history else None
    ranked = [(s.value, p) for s, p in prior.predict(words_of_turn(state), previous, len(history))[:3]]
    listed = ", ".join(f"{name} {p:.2f}" for name, p in ranked)
    return f" Counsellors in this situation most often use: {listed}.", ranked


def empathy_strategy_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Set the goal to response and choose the support strategy."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    previous = _previous_strategies(state)
    task = TASK if not previous else TASK + f" Your earlier replies used: {', '.join(previous)}."
    hint, ranked = prior_hint(state)
    task += hint
    messages = build_messages(state, task, history_turns=config.history_turns)
    answer = ask(runtime.context.backbone, messages, StrategyDraft, repair_attempts=config.repair_attempts,
                 max_tokens=MAX_TOKENS)
    if answer.parsed is None:
        raise StructuredOutputError(f"empathy-strategy output invalid after {len(answer.attempts)} attempts: {answer.error}")
    draft = answer.parsed
    plan = EmpathyPlan(goal=draft.goal.strip(), strategy=draft.strategy, rationale=draft.rationale.strip())
    record = agent_record(
        "empathy_strategy", started, output=plan, messages=messages, answer=answer, inputs={"previous": previous, "prior": ranked}
    )
    return {"empathy": plan, "steps": [record]}
