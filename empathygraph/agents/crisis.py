"""Crisis protocol: a safe, supportive reply when the user discloses a risk.

It replaces strategy and response planning for the turn, follows a fixed protocol
(acknowledge, encourage contacting help now, give the configured resources, stay
present) and skips reflection, so no later step can soften or remove it.
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from empathygraph.agents.expression import avatar_directives
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.context import RunContext
from empathygraph.schemas import (
    CoarseEmotion,
    EmpathyPlan,
    ResponsePlan,
    RiskCategory,
    SpeechStyle,
    Strategy,
)
from empathygraph.state import MergState

PROTOCOL: dict[RiskCategory, tuple[str, str]] = {
    RiskCategory.SELF_HARM: (
        "I'm really glad you told me, and I'm so sorry you're hurting this much. You don't have to face this "
        "alone, and you deserve support right now.",
        "Are you safe right now? I'm here with you, and I'd like you to reach out to one of these now.",
    ),
    RiskCategory.ABUSE: (
        "Thank you for trusting me with this. What is happening to you is not okay, and it is not your fault.",
        "Your safety matters most. Are you somewhere safe right now? Please reach out to someone who can help.",
    ),
    RiskCategory.MEDICAL_EMERGENCY: (
        "This sounds like it could be a medical emergency, and I'm worried about you.",
        "Please call your local emergency number now, or ask someone near you to call. Getting help quickly "
        "matters most.",
    ),
}
GOALS: dict[RiskCategory, tuple[str, Strategy]] = {
    RiskCategory.SELF_HARM: ("keep them safe and connect them with crisis support now", Strategy.AFFIRMATION),
    RiskCategory.ABUSE: ("affirm it is not their fault and connect them with help", Strategy.AFFIRMATION),
    RiskCategory.MEDICAL_EMERGENCY: ("get them emergency medical help now", Strategy.INFORMATION),
}


def crisis_reply(category: RiskCategory, resources: list[str]) -> str:
    """The protocol's words for one risk category, with the configured resources."""
    acknowledge, encourage = PROTOCOL[category]
    return " ".join([acknowledge, encourage, *resources])


def crisis_protocol_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Answer a risk disclosure with the fixed safety protocol."""
    started = time.perf_counter()
    safety = state["perception"].safety
    resources = list(runtime.context.config.safety.resources)
    goal, strategy = GOALS[safety.category]
    empathy = EmpathyPlan(goal=goal, strategy=strategy, rationale=f"safety screen: {safety.category.value}")
    plan = ResponsePlan(
        text=crisis_reply(safety.category, resources),
        speech=SpeechStyle(emotion=CoarseEmotion.NEUTRAL, rate=0.9, pitch=-0.5, energy=0.4),
        avatar=avatar_directives(state["emotion"], strategy, crisis=True),
        profile=state.get("profile") or runtime.context.config.profile,
        safety_protocol=True,
        resources=resources,
    )
    record = agent_record(
        "crisis_protocol",
        started,
        output=plan,
        inputs={"category": safety.category.value, "matched": safety.matched},
        kind="protocol",
        notes=["reflection skipped: the protocol reply cannot be changed"],
    )
    return {"empathy": empathy, "response": plan, "steps": [record]}


SPEC = AgentSpec(name="crisis_protocol", label="crisis protocol", node=crisis_protocol_node, kind="protocol",
                 writes="response", output=ResponsePlan, then="render")
