"""The reflection loop: bounded rounds, rule checks, the critique reaching the writer."""

from __future__ import annotations

import pytest

from empathygraph.agents.reflection import check_plan
from empathygraph.agents.reply_checks import ReplyContext
from empathygraph.schemas import (
    AvatarDirectives,
    AvatarProfile,
    CoarseEmotion,
    EDEmotion,
    EmotionAnalysis,
    EmpathyPlan,
    ResponsePlan,
    SpeechStyle,
    Strategy,
)
from tests.conftest import make_empathizer, scripted, test_config

ALWAYS_REVISE = {"verdict": "revise", "advice": "mention the dog by name"}


@pytest.mark.parametrize("rounds", [0, 1, 3])
def test_critic_that_never_accepts_is_bounded_by_reflection_rounds(rounds):
    model = scripted(ReflectionDraft=ALWAYS_REVISE)
    config = test_config(agents={"reflection_rounds": rounds})
    result = make_empathizer(model, config).respond("My dog died.")
    assert len(model.calls_for("ResponseDraft")) == rounds + 1
    assert [c.verdict for c in result.critiques] == ["revise"] * rounds + ["accept"]
    # Once no rewrite is possible the LLM critic is not asked: its verdict could change nothing.
    assert len(model.calls_for("ReflectionDraft")) == rounds
    assert result.critiques[-1].source == "checks"


def test_rewrite_prompt_carries_the_critics_advice():
    model = scripted(
        ReflectionDraft=[ALWAYS_REVISE, {"verdict": "accept", "advice": ""}],
        ResponseDraft=[{"reply": "That is sad."}, {"reply": "I'm so sorry about Biscuit. He was family."}],
    )
    result = make_empathizer(model).respond("My dog Biscuit died.")
    assert result.plan.text == "I'm so sorry about Biscuit. He was family."
    assert "mention the dog by name" in model.calls_for("ResponseDraft")[1].prompt


def test_a_rewrite_is_asked_afresh_and_sampled_not_shown_the_reply_it_replaces():
    # Shown its earlier reply, the 1.5B model wrote it again word for word (a ~4 s rewrite that changed nothing).
    model = scripted(
        ReflectionDraft=[ALWAYS_REVISE, {"verdict": "accept", "advice": ""}],
        ResponseDraft=[{"reply": "That is sad."}, {"reply": "Biscuit was family."}],
    )
    make_empathizer(model, test_config(agents={"reply_temperature": 0.7})).respond("My dog Biscuit died.")
    rewrite = model.calls_for("ResponseDraft")[1]
    assert "That is sad." not in rewrite.prompt and rewrite.options["temperature"] == 0.7


def test_a_rewrite_that_comes_out_the_same_says_so():
    model = scripted(ReflectionDraft=ALWAYS_REVISE, ResponseDraft={"reply": "That is sad."})
    result = make_empathizer(model).respond("My dog Biscuit died.")
    rewrite = [s for s in result.steps if s.step == "response"][1]
    assert "the rewrite came out the same" in rewrite.fallback


def test_rule_checks_send_back_a_dismissive_reply_even_when_the_llm_accepts():
    model = scripted(ResponseDraft=[{"reply": "Just get over it, it was only a dog."}, {"reply": "I'm sorry."}])
    result = make_empathizer(model).respond("My dog died.")
    assert result.critiques[0].verdict == "revise"
    assert any("dismissive" in issue for issue in result.critiques[0].issues)
    assert result.plan.text == "I'm sorry."


def _analysis(coarse_emotion: EDEmotion = EDEmotion.SAD) -> EmotionAnalysis:
    return EmotionAnalysis(emotion=coarse_emotion, coarse=CoarseEmotion.SADNESS, intensity=0.6, valence=-0.7,
                           arousal=-0.3, event_scenario="loss", causes=["x"], label_source="llm")


def _plan(text: str, expression: CoarseEmotion = CoarseEmotion.SADNESS, profile: AvatarProfile | None = None):
    return ResponsePlan(
        text=text,
        speech=SpeechStyle(emotion=expression, rate=1.0, pitch=0.0, energy=0.5),
        avatar=AvatarDirectives(expression=expression, intensity=0.5),
        profile=profile or AvatarProfile(),
    )


def test_check_plan_finds_what_rules_can_see():
    empathy = EmpathyPlan(goal="g", strategy=Strategy.QUESTION, rationale="r")
    issues = check_plan(_plan("That is sad.", CoarseEmotion.JOY, AvatarProfile(age="elderly")), _analysis(),
                        empathy, AvatarProfile(), ReplyContext("my dog died"), max_words=40)
    text = " | ".join(issues)
    assert "asks nothing" in text
    assert "face shows joy" in text
    assert "profile" in text


def test_check_plan_passes_a_fitting_plan():
    empathy = EmpathyPlan(goal="g", strategy=Strategy.QUESTION, rationale="r")
    assert check_plan(_plan("How are you holding up?"), _analysis(), empathy, AvatarProfile(), ReplyContext("my dog died"), 40) == []
