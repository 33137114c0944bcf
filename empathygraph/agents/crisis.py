"""Crisis protocol: a safe, supportive reply when the person discloses a risk, and care after it.

When the risk assessment finds danger, this replaces strategy and response planning for
the turn: one short sentence that acknowledges what the person said (written by the LLM
and kept only if it passes the rules in ``crisis_words``, else a fixed one), then the fixed
protocol for every category found, the configured resources, and an offer to stay. It skips
reflection, so no later step can soften or remove it. A category whose protocol the session was
given already, on a turn that fires only because the earlier words are read again, is said in its
short form (``crisis_words.protocol_reply``): the step that matters now and the resources again,
not the same hundred words after "ok thanks". A new disclosure gets the whole protocol again.

A session that disclosed risk stays careful: on its later turns the ordinary agents answer,
and ``stay_careful`` (after reflection, before rendering) adds a fixed reminder with the
resources to whatever reply they settled on, so the protocol is not dropped after one reply.
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.crisis_words import (
    AGAIN_PLEASANTRY,
    PROTOCOLS,
    acknowledgment_problems,
    follow_up,
    given_before,
    protocol_categories,
    protocol_reply,
    said_as,
)
from empathygraph.agents.expression import avatar_directives
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.risk import disclosed_now
from empathygraph.agents.small_talk import pleasantry
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.errors import BackendError
from empathygraph.phrasing import split_sentences
from empathygraph.schemas import (
    CoarseEmotion,
    EmpathyPlan,
    ResponsePlan,
    RiskCategory,
    SafetyAssessment,
    SpeechStyle,
    Strategy,
)
from empathygraph.state import MergState
from empathygraph.tools.safety import find as find_phrases

ACKNOWLEDGE_TASK = (
    'the first sentence of your reply. What they told you is serious: {danger}. In one short, warm sentence said '
    'to them ("you"), reflect back what they are going through and how hard and frightening it is, in your own '
    'words; never make it sound small or ordinary. No question, no advice, do not open with "I understand", and do '
    'not mention any method, object or place of harm. JSON: "acknowledgment".'
)


ACKNOWLEDGE_AGAIN_TASK = (
    'the first sentence of your reply. Earlier they told you something serious ({danger}), and you gave them '
    'the steps and where to get help. In one short, warm sentence said to them ("you"), answer what they just said, '
    'in your own words. '
    'No question, no advice, and do not mention any method, object or place of harm. JSON: "acknowledgment".'
)


def acknowledge_task(categories: list[RiskCategory], repeat: bool = False) -> str:
    """The acknowledgment task, naming the danger of each category found (so a threat is not read as an upset);
    ``repeat``: the session was given this protocol already, so the sentence answers their new words."""
    danger = "; ".join(PROTOCOLS[c].danger for c in protocol_categories(categories))
    return (ACKNOWLEDGE_AGAIN_TASK if repeat else ACKNOWLEDGE_TASK).format(danger=danger)


def protocols_given(state: MergState) -> frozenset[RiskCategory]:
    """The categories whose protocol this session's earlier turns were given."""
    return frozenset(entry.risk for entry in state.get("history", []) if entry.risk is not RiskCategory.NONE)


MAX_TOKENS = 48
STRATEGY = {RiskCategory.MEDICAL_EMERGENCY: Strategy.INFORMATION}


class AcknowledgmentDraft(BaseModel):
    """LLM output of the crisis step: the reply's first sentence only; the rest is fixed."""

    acknowledgment: str = Field(max_length=240)


def acknowledgment(state: MergState, runtime: Runtime[RunContext], categories: list[RiskCategory], repeat: bool):
    """The LLM's acknowledgment if it passes the rules, else None; with what to record about it."""
    config = runtime.context.config
    kind = pleasantry(state["cues"].words) if repeat else None
    if kind is not None:
        return AGAIN_PLEASANTRY[kind], None, None, [f"the protocol again after {kind} only: its fixed answer"]
    if config.safety.acknowledgment != "llm":
        return None, None, None, ["fixed acknowledgment (safety.acknowledgment: fixed)"]
    task = acknowledge_task(categories, repeat)
    messages = build_messages(state, task, history_turns=config.agents.history_turns)
    try:
        answer = ask(runtime.context.backbone, messages, AcknowledgmentDraft, repair_attempts=0,
                     max_tokens=MAX_TOKENS)
    except BackendError as exc:
        return None, messages, None, [f"fixed acknowledgment: the LLM failed ({exc})"]
    if answer.parsed is None:
        return None, messages, answer, [f"fixed acknowledgment: unusable answer ({answer.error})"]
    text, *rest = split_sentences(answer.parsed.acknowledgment.strip()) or [""]
    notes = []
    if rest:  # asked for one sentence, the 1.5B model wrote two or three (9 of 20): the first may stand alone
        notes.append(f"kept the first of the LLM's {len(rest) + 1} sentences")
    earlier = [entry.reply_in_prompts for entry in state.get("history", [])]
    problems = acknowledgment_problems(text, state["cues"].words, task, earlier)
    if problems:
        return None, messages, answer, [*notes, f"fixed acknowledgment: the LLM's ({text!r}) {'; '.join(problems)}"]
    return text, messages, answer, notes


def crisis_protocol_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Answer a risk disclosure: a checked acknowledgment, the fixed protocol and the resources."""
    started = time.perf_counter()
    safety: SafetyAssessment = state["safety"] or SafetyAssessment()
    categories = safety.categories or [RiskCategory.SELF_HARM]
    config = runtime.context.config
    resources = config.safety.resources_for(categories)
    # A new disclosure gets the whole protocol again ("I counted out the pills tonight" after "I won't need my
    # things much longer"); the short form is for turns that fire only because the earlier words are read again.
    given = frozenset() if disclosed_now(runtime.context, safety) else protocols_given(state)
    repeat = given_before(categories, given)
    if safety.tentative and not repeat:
        # Read as unsure, not plainly said: most false alarms are, so no sentence may presume the danger.
        opening, messages, answer = None, None, None
        notes = ["tentative reading: the unsure acknowledgment" + (" and steps" if any(
            PROTOCOLS[c].unsure_steps for c in protocol_categories(categories)) else "")]
    else:
        opening, messages, answer, notes = acknowledgment(state, runtime, categories, repeat)
    # The same phrases the screen matched in these words (regular expressions: nothing to load).
    fixed_opening = opening is None and not safety.tentative and not repeat
    kind = said_as(categories, find_phrases(state["cues"].words)) if fixed_opening else None
    if kind is not None:
        notes.append(f"acknowledgment for how a phrase said it ({kind})")
    if given & set(categories):
        notes.append("said before in this session, so in its short form: "
                     + ", ".join(c.value for c in protocol_categories(categories) if c in given))
    first = categories[0]
    empathy = EmpathyPlan(goal=PROTOCOLS.get(first, PROTOCOLS[RiskCategory.SELF_HARM]).goal,
                          strategy=STRATEGY.get(first, Strategy.AFFIRMATION),
                          rationale=f"risk assessment: {', '.join(c.value for c in categories)}")
    plan = ResponsePlan(
        text=protocol_reply(categories, opening, resources, given, tentative=safety.tentative, said_as=kind),
        speech=SpeechStyle(emotion=CoarseEmotion.NEUTRAL, rate=0.9, pitch=-0.5, energy=0.4),
        avatar=avatar_directives(state["emotion"], empathy.strategy, crisis=True),
        profile=state.get("profile") or config.profile,
        safety_protocol=True,
        resources=resources,
    )
    record = agent_record(
        "crisis_protocol", started, output=plan, messages=messages, answer=answer,
        inputs={"categories": [c.value for c in categories], "matched": safety.matched},
        kind="protocol", notes=[*notes, "reflection skipped: the protocol reply cannot be changed"],
    )
    chat = exchange("crisis_protocol", messages, answer.raw if answer is not None and opening else None)
    return {"empathy": empathy, "response": plan, "steps": [record], "chat": chat}


def stay_careful_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """In a session that disclosed risk before, add the fixed reminder and resources to the settled reply."""
    safety, plan = state["safety"], state["response"]
    if safety is None or not safety.careful or plan is None or plan.safety_protocol:
        return {}
    started = time.perf_counter()
    earlier = [s for s in safety.signals if s.source == "session"]
    remembered = [c for s in earlier for c in s.categories]
    resources = runtime.context.config.safety.resources_for(remembered)
    unsure = bool(earlier) and not any(s.plain for s in earlier)
    reminder = follow_up(resources, unsure=unsure)
    updated = plan.model_copy(update={"text": f"{plan.text} {reminder}", "resources": resources})
    record = agent_record("stay_careful", started, output=updated, kind="protocol",
                          inputs={"earlier_risk": [c.value for c in remembered]},
                          notes=["careful session: the reminder is fixed and added after reflection"
                                 + (" (its unsure form: every earlier disclosure was read as unsure)" if unsure else "")])
    return {"response": updated, "steps": [record]}


SPEC = AgentSpec(name="crisis_protocol", label="crisis protocol", node=crisis_protocol_node, kind="protocol",
                 writes="response", output=ResponsePlan, then="render")
STAY_CAREFUL = AgentSpec(name="stay_careful", label="careful after a disclosure", node=stay_careful_node,
                         kind="protocol", writes="response", output=ResponsePlan, then="render", live="if-recorded")
