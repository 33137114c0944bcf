"""Reflection agent: audit the response plan, accept it or send it back with a critique.

Rule checks catch what rules can see exactly (length, a question that asks nothing,
face or voice that contradict the analysis, a changed avatar profile, dismissive or
harmful phrasing, and the stock phrasing, label parroting and taken-literally harm of
``reply_checks``). The LLM then judges what rules cannot: does the reply fit the
person's emotion and the goal. The router allows at most ``agents.reflection_rounds``
rewrites.
"""

from __future__ import annotations

import re
import time
from typing import Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.config import AgentsConfig, llm_step_wanted
from empathygraph.agents.expression import listener_expression
from empathygraph.agents.fallback import fallback_reply
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.reply_checks import ReplyContext, reply_problems
from empathygraph.agents.response import turn_context, word_count
from empathygraph.agents.spec import AgentSpec, Route
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.schemas import AvatarProfile, Critique, EmotionAnalysis, EmpathyPlan, ResponsePlan, Strategy
from empathygraph.state import MergState

TASK = (
    "check your reply. Is it kind, safe, true to their feeling and your goal, and about what they said? "
    'JSON: {"verdict": "accept"} or {"verdict": "revise", "advice": "what to fix, under 12 words"}.'
)

HARMFUL = re.compile(
    r"\b(?:get over it|calm down|cheer up|don'?t be sad|look on the bright side|(?:keep|get) your emotions in check|"
    r"stop (?:being|crying|whining)|it'?s (?:not|no) big deal|man up|"
    r"you(?:'re| are) overreacting|kill yourself|you deserve(?:d)? (?:it|this)|your own fault)\b",
    re.IGNORECASE,
)

MAX_TOKENS = 48


class ReflectionDraft(BaseModel):
    """LLM output of the reflection step."""

    verdict: Literal["accept", "revise"]
    # Optional, so an accepting critic can close its JSON after the verdict.
    advice: str | None = Field(default=None, max_length=300)


def check_plan(plan: ResponsePlan, analysis: EmotionAnalysis, empathy: EmpathyPlan, profile: AvatarProfile,
               context: ReplyContext, max_words: int) -> list[str]:
    """Problems a rule can see in a response plan to their words in ``context`` (empty when none)."""
    issues = []
    count = word_count(plan.text)
    if count == 0:
        issues.append("the reply is empty")
    elif count > int(max_words * 1.5):
        issues.append(f"the reply has {count} words; keep it under {max_words}")
    if empathy.strategy is Strategy.QUESTION and "?" not in plan.text:
        issues.append("the strategy is Question but the reply asks nothing; end with one short, open question")
    expected = listener_expression(analysis)
    if plan.avatar.expression != expected:
        issues.append(f"the face shows {plan.avatar.expression.value}; the analysis calls for {expected.value}")
    if plan.speech.emotion != plan.avatar.expression:
        issues.append(f"the voice sounds {plan.speech.emotion.value} while the face shows {plan.avatar.expression.value}")
    if plan.profile != profile:
        issues.append("the avatar profile differs from the session's")
    if match := HARMFUL.search(plan.text):
        issues.append(f'the reply is dismissive or harmful ("{match.group(0)}")')
    if plan.text.strip().lower() == context.words.strip().lower():
        issues.append("the reply repeats the person's words")
    return issues + reply_problems(plan.text, context)


def wants_llm_critic(config: AgentsConfig, backbone_kind: str) -> bool:
    """Whether the LLM critic runs: ``auto`` asks it only of a server backbone, where it is cheap."""
    return llm_step_wanted(config.reflection_llm, backbone_kind)


def reflection_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Audit the plan; ask for a rewrite while rounds remain."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    plan, analysis, empathy = state["response"], state["emotion"], state["empathy"]
    profile = state["profile"]
    rounds = state["rounds"]
    context = turn_context(state)
    issues = check_plan(plan, analysis, empathy, profile, context, config.reply_max_words)
    can_revise = rounds < config.reflection_rounds
    messages = answer = None
    advice, source, llm_verdict = "", "checks", "accept"
    if can_revise and wants_llm_critic(config, runtime.context.config.backbone.kind):
        messages = build_messages(state, TASK, history_turns=config.history_turns)
        answer = ask(runtime.context.backbone, messages, ReflectionDraft, repair_attempts=config.repair_attempts,
                     max_tokens=MAX_TOKENS)
        source = "checks+llm"
        if answer.parsed is not None:
            llm_verdict, advice = answer.parsed.verdict, (answer.parsed.advice or "").strip()
            if llm_verdict == "revise":
                issues.append(advice or "the LLM critic asked for a better fit")
    verdict = "revise" if issues else "accept"
    critique = Critique(
        verdict=verdict if can_revise else "accept",
        issues=issues,
        advice=advice or "; ".join(issues),
        source=source,
    )
    notes = [] if can_revise or not issues else [f"no rounds left ({rounds}/{config.reflection_rounds}); accepted with issues"]
    # Out of rounds with the words themselves still wrong (their message said back in their own voice, the
    # README scenario's rewrite once): a short reply by rule from the analysis is sent instead.
    safe = None
    if not can_revise and reply_problems(plan.text, context):
        safe = plan.model_copy(update={"text": fallback_reply(analysis, empathy.strategy,
                                                              risky_choice=context.risky_choice)})
        notes.append(f"the reply's words still had problems; a reply by rule was sent instead: {safe.text}")
    record = agent_record(
        "reflection",
        started,
        output=critique,
        messages=messages,
        answer=answer,
        round=rounds,
        inputs={"rule_issues": issues, "llm_verdict": llm_verdict},
        fallback=f"LLM critique unusable ({answer.error}); rule checks only" if answer and answer.parsed is None else None,
        notes=notes,
    )
    chat = exchange("reflection", messages, answer.accepted if answer else None)
    update: dict = {"critique": critique, "critiques": [critique], "steps": [record], "chat": chat}
    if safe is not None:
        update["response"] = safe
    if critique.verdict == "revise":
        update["rounds"] = rounds + 1
    return update


def route_after_reflection(state: MergState) -> Literal["response", "stay_careful"]:
    """Rewrite while the critic asks for it and rounds remain; otherwise on to rendering
    (through ``stay_careful``, which adds the reminder a careful session needs)."""
    critique = state["critique"]
    return "response" if critique is not None and critique.verdict == "revise" else "stay_careful"


# Its verdicts show in the live view as events of their own, so its line carries no headline.
SPEC = AgentSpec(name="reflection", label="reflection agent", node=reflection_node, writes="critique", output=Critique,
                 resets={"critiques": None, "rounds": 0}, then=Route(route_after_reflection, ("response", "stay_careful")),
                 live="line")
