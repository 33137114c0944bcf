"""Empathy-strategy agent: the Chain-of-Empathy goal to response and an ESConv strategy.

The trained prior chooses the strategy by default; the goal then is the strategy's own
(``STRATEGY_GOAL``) unless ``agents.goal_llm`` asks the LLM for one (by default only on a
server backbone: on the embedded CPU model that call cost ~2-3 s of a ~14 s turn and wrote
generic goals such as "help them understand their feelings and find a solution", which pulled
a Question reply toward advice).
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.config import AgentsConfig, llm_step_wanted
from empathygraph.agents.fallback import fallback_plan
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.agents.strategy_prior import StrategyPredictor
from empathygraph.agents.structured import ask, with_choices
from empathygraph.context import RunContext
from empathygraph.schemas import EmpathyPlan, Strategy
from empathygraph.state import MergState

TASK = (
    'the plan. JSON: "strategy" (one of: {choices}), "goal" (what your reply should do for them, '
    'under 10 words).'
)
TASK_GIVEN_STRATEGY = (
    'the plan. Your reply will use the strategy "{strategy}". JSON: "goal" (what your reply should do for '
    'them, under 10 words).'
)
# When the prior assists, the LLM chooses among its likeliest strategies only: a shorter
# prompt and answer, and a small model's choice stays where counsellors' choices are.
PRIOR_CHOICES = 4

# The goal to response each strategy sets when no LLM writes one (as the response's task
# words it: ``response.STRATEGY_GUIDE``).
STRATEGY_GOAL: dict[Strategy, str] = {
    Strategy.QUESTION: "learn more about what they told me",
    Strategy.RESTATEMENT: "show them what they said was heard",
    Strategy.REFLECTION: "show them what this is like for them is understood",
    Strategy.SELF_DISCLOSURE: "let them know they are not alone in this",
    Strategy.AFFIRMATION: "reassure them and affirm what they did or feel",
    Strategy.SUGGESTIONS: "offer one small idea they could try",
    Strategy.INFORMATION: "give them one useful fact about their situation",
    Strategy.OTHERS: "stay warm and with them",
}

# Goals run long (the model ignores word limits); one cut here keeps its complete words.
MAX_TOKENS = 40


class StrategyDraft(BaseModel):
    """LLM output of the strategy step. The rationale is written from the evidence, not asked:
    a small model's stated reason is a guess about itself, the prior's numbers are what decided."""

    strategy: Strategy
    goal: str = Field(max_length=300)


class GoalDraft(BaseModel):
    """LLM output when the strategy prior already chose the strategy."""

    goal: str = Field(max_length=300)


def rationale(strategy: Strategy, ranked: list[tuple[Strategy, float]], source: str) -> str:
    """Why this strategy, from what decided it."""
    probability = dict(ranked).get(strategy)
    if source == "prior":
        return f"ESConv counsellors' most likely next strategy here (p={probability:.2f})"
    if probability is None:
        return "chosen by the LLM"
    likeliest = ", ".join(f"{s.value} {p:.2f}" for s, p in ranked[:PRIOR_CHOICES])
    return f"chosen by the LLM among counsellors' likeliest strategies here ({likeliest})"


def _previous_strategies(state: MergState, count: int = 2) -> list[str]:
    return [entry.strategy.value for entry in state["history"][-count:]]


def held_back(state: MergState) -> frozenset[Strategy]:
    """Strategies this turn may not use: no Affirmation ("what is good in what they did") of a choice that
    could hurt them or someone else."""
    return frozenset({Strategy.AFFIRMATION}) if state["cues"].risky_choice else frozenset()


def prior_ranking(prior: StrategyPredictor | None, state: MergState) -> list[tuple[Strategy, float]]:
    """The strategy prior's ranking for this turn, the held-back strategies left out (empty without a prior)."""
    if prior is None:
        return []
    history = state["history"]
    previous = history[-1].strategy if history else None
    ranking = prior.predict(state["cues"].words, previous, len(history))
    excluded = held_back(state)
    return [(strategy, p) for strategy, p in ranking if strategy not in excluded]


def prior_choice(ranked: list[tuple[Strategy, float]], config: AgentsConfig) -> Strategy | None:
    """The prior's top strategy when policy and confidence let it decide."""
    if not ranked or config.strategy_label == "llm":
        return None
    top, probability = ranked[0]
    if config.strategy_label == "auto" and probability < config.prior_min_confidence:
        return None
    return top


def empathy_strategy_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Set the goal to response and choose the support strategy.

    The strategy comes from the ESConv-trained prior when it is confident (a small LLM
    is a weak strategy classifier), else from the LLM among the prior's likeliest ones.
    The LLM sets the goal when it chooses the strategy or ``goal_llm`` asks it; else the
    goal is the strategy's own. The rationale states what decided the strategy.
    """
    started = time.perf_counter()
    config = runtime.context.config.agents
    previous = _previous_strategies(state)
    ranked = prior_ranking(runtime.context.strategy_prior, state)
    chosen = prior_choice(ranked, config)
    inputs = {
        "previous": previous,
        "prior": [(s.value, p) for s, p in ranked[:3]],
        "strategy_source": "prior" if chosen is not None else "llm",
        "held_back": sorted(s.value for s in held_back(state)),
    }
    if chosen is not None and not llm_step_wanted(config.goal_llm, runtime.context.config.backbone.kind):
        plan = EmpathyPlan(goal=STRATEGY_GOAL[chosen], strategy=chosen, rationale=rationale(chosen, ranked, "prior"))
        record = agent_record("empathy_strategy", started, output=plan, inputs={**inputs, "goal_source": "strategy"})
        return {"empathy": plan, "steps": [record]}
    schema: type[StrategyDraft | GoalDraft]
    if chosen is not None:
        schema, task = GoalDraft, TASK_GIVEN_STRATEGY.format(strategy=chosen.value)
    else:
        choices = [s.value for s, _ in ranked[:PRIOR_CHOICES]] if ranked and config.strategy_label == "auto" else []
        choices = choices or [s.value for s in Strategy if s not in held_back(state)]
        schema = with_choices(StrategyDraft, "strategy", tuple(choices))
        task = TASK.format(choices=", ".join(choices))
        if previous:
            task += f" Your earlier replies used: {', '.join(previous)}."
    messages = build_messages(state, task, history_turns=config.history_turns)
    answer = ask(runtime.context.backbone, messages, schema, repair_attempts=config.repair_attempts,
                 max_tokens=MAX_TOKENS, words_ok=True)
    fallback = None
    if answer.parsed is not None:
        draft = answer.parsed
        strategy = chosen if chosen is not None else Strategy(draft.strategy)  # type: ignore[union-attr]
        plan = EmpathyPlan(
            goal=draft.goal.strip(),
            strategy=strategy,
            rationale=rationale(strategy, ranked, "prior" if chosen is not None else "llm"),
        )
    else:  # the person still deserves a reply: plan it by rule (the prior's strategy when there is one), and say so
        plan = fallback_plan(state["emotion"], chosen or (ranked[0][0] if ranked else None))
        source = "the prior" if ranked else "rule"
        fallback = f"LLM plan unusable ({answer.error}); goal by rule, strategy from {source}"
    record = agent_record("empathy_strategy", started, output=plan, messages=messages, answer=answer,
                          fallback=fallback, inputs={**inputs, "goal_source": "llm"})
    return {"empathy": plan, "steps": [record], "chat": exchange("empathy_strategy", messages, answer.accepted)}


SPEC = AgentSpec(name="empathy_strategy", label="empathy-strategy agent", node=empathy_strategy_node,
                 writes="empathy", output=EmpathyPlan, then="response")
