"""The graph's routes: which agents run for which turn, and what they hand on."""

from __future__ import annotations

import itertools
import re

from empathygraph.graphs.merg import build_graph
from empathygraph.schemas import LabelScore, RiskCategory, Strategy, TextEmotionCue
from empathygraph.state import Exchange, TurnInput
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import make_empathizer, scripted, test_config

AGENT_STEPS = ["perception", "emotion_cause", "assess_risk", "empathy_strategy", "response", "reflection"]


def agent_steps(result) -> list[str]:
    return [s.step for s in result.steps if s.kind in ("agent", "protocol")]


def test_text_turn_runs_every_agent_in_chain_of_empathy_order():
    result = make_empathizer().respond("Yesterday my dog died and the house is empty.")
    assert agent_steps(result) == AGENT_STEPS
    assert result.emotion.emotion.value == "sad" and result.emotion.label_source == "llm"
    assert result.emotion.causes == ["my dog died"]
    assert result.empathy.strategy is Strategy.REFLECTION
    assert result.plan.text.startswith("I'm so sorry")
    assert result.critiques[-1].verdict == "accept"


def test_text_only_turn_does_not_ask_llm_to_fuse_cues():
    model = scripted()
    make_empathizer(model).respond("My dog died.")
    assert model.calls_for("PerceptionDraft") == []


def test_later_agents_see_earlier_answers_as_one_growing_chat():
    """Each prompt extends the previous one, so llama.cpp re-reads only the new task."""
    model = scripted()
    make_empathizer(model).respond("Yesterday my dog died and the house is empty.")
    prompts = [[str(m.content) for m in call.messages] for call in model.calls]
    for earlier, later in itertools.pairwise(prompts):
        assert later[: len(earlier)] == earlier
    assert all(len([m for m in call.messages if m.type == "system"]) == 1 for call in model.calls)
    assert model.calls[0].messages[0].type == "system"


def test_confident_classifier_decides_the_label_and_llm_only_explains():
    class LabellingToolBox(ToolBox):
        def text_emotion(self, text: str, llm_state=None) -> TextEmotionCue:
            return TextEmotionCue(top=[LabelScore(label="devastated", score=0.7)], model="fixed")

    model = scripted()
    config = test_config(perception={"text_emotion": True})
    result = make_empathizer(model, config, toolbox=LabellingToolBox(config.perception)).respond("My dog died.")
    assert result.emotion.emotion.value == "devastated" and result.emotion.label_source == "classifier"
    assert model.calls_for("LabelledCauseDraft") == [] and len(model.calls_for("CauseDraft")) == 1
    assert "devastated" in model.calls_for("CauseDraft")[0].prompt


def test_the_summed_coarse_reading_drives_voice_and_face_when_the_fine_label_misleads():
    """The README's exam scenario was read as *prepared* (coarse neutral), so the listener looked blank."""

    class ExamToolBox(ToolBox):
        def text_emotion(self, text: str, llm_state=None) -> TextEmotionCue:
            top = [LabelScore(label="prepared", score=0.46), LabelScore(label="anxious", score=0.3)]
            coarse = [LabelScore(label="fear", score=0.52), LabelScore(label="neutral", score=0.48)]
            return TextEmotionCue(top=top, model="fixed", coarse=coarse)

    config = test_config(perception={"text_emotion": True})
    result = make_empathizer(scripted(), config, toolbox=ExamToolBox(config.perception)).respond(
        "I have an exam tomorrow and my mind keeps going blank."
    )
    assert result.emotion.emotion.value == "prepared" and result.emotion.coarse.value == "fear"
    assert result.plan.avatar.expression.value == result.plan.speech.emotion.value == "sadness"  # concern, not blank


def test_crisis_disclosure_takes_the_protocol_route_and_skips_reflection():
    model = scripted(
        LabelledCauseDraft={"scenario": "despair", "emotion": "devastated", "quote": "end my life", "intensity": "high"}
    )
    result = make_empathizer(model).respond("I can't do this anymore, I want to end my life.")
    assert agent_steps(result) == ["perception", "emotion_cause", "assess_risk", "crisis_protocol"]
    assert result.safety.category is RiskCategory.SELF_HARM
    assert result.plan.safety_protocol
    assert result.plan.text.startswith("That sounds like so much pain")  # the LLM's checked acknowledgment
    assert "988" in result.plan.text  # a configured resource is in the reply
    assert model.calls_for("ResponseDraft") == [] and model.calls_for("ReflectionDraft") == []


def test_crisis_resources_come_from_the_config():
    config = test_config(safety={"resources": ["Call the Example Helpline at 0800 000 000."],
                                 "resources_by_category": {}})
    model = scripted(LabelledCauseDraft={"scenario": "x", "emotion": "afraid", "quote": "he hits me", "intensity": "high"})
    result = make_empathizer(model, config).respond("My husband hits me when he drinks.")
    assert result.safety.category is RiskCategory.ABUSE
    assert result.plan.resources == ["Call the Example Helpline at 0800 000 000."]
    assert "0800 000 000" in result.plan.text and "988" not in result.plan.text


def test_disabled_safety_screen_answers_normally():
    config = test_config(safety={"enabled": False})
    result = make_empathizer(config=config).respond("I want to end my life.")
    assert not result.plan.safety_protocol
    assert "response" in agent_steps(result)


def test_audio_turn_with_unusable_file_is_skipped_and_the_turn_goes_on(tmp_path):
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF\x00\x00not really a wav")
    turn = TurnInput(text="My dog died.", audio=broken)
    result = make_empathizer().respond(turn)
    assert result.plan.text
    assert any(s.startswith("listen:") for s in result.skipped)
    listen = next(s for s in result.steps if s.step == "listen")
    assert listen.error and "broken.wav" in listen.error


def test_the_reply_task_spells_out_what_the_chosen_strategy_asks():
    model = scripted(StrategyDraft={"goal": "understand more", "strategy": "Question", "rationale": "little is known"})
    make_empathizer(model).respond("My dog died.")
    call = model.calls_for("ResponseDraft")[0]
    assert "ask one short question about a detail they mentioned" in call.prompt
    # ... and holds the reply to one question, at its end, while it is decoded
    schema = call.options["response_format"]["json_schema"]["schema"]
    from empathygraph.agents.reply_drafts import QUESTION_PATTERN

    assert schema["properties"]["reply"]["pattern"] == QUESTION_PATTERN
    assert re.match(QUESTION_PATTERN, "Oh, Milo. How old was he?") and not re.match(QUESTION_PATTERN, "How old? Why?")


def test_a_perception_model_that_cannot_load_skips_its_modality_not_the_turn(tmp_path):
    from empathygraph.errors import BackendError

    class NoFaceModel(ToolBox):
        def see(self, media):
            raise BackendError("face model package is not installed")

    image = tmp_path / "face.png"
    image.write_bytes(b"\x89PNG")
    config = test_config()
    result = make_empathizer(config=config, toolbox=NoFaceModel(config.perception)).respond(
        TurnInput(text="My dog died.", image=image)
    )
    assert result.plan.text
    assert result.skipped == ["look: face model package is not installed"]


def test_a_confident_strategy_prior_decides_and_on_the_embedded_model_the_strategy_sets_the_goal():
    # goal_llm "auto": no LLM call for the goal on the CPU model (it cost ~2-3 s a turn).
    from empathygraph.agents.empathy_strategy import STRATEGY_GOAL

    model = scripted()
    config = test_config(agents={"strategy_label": "prior"})
    result = make_empathizer(model, config).respond("My dog died yesterday.")
    step = next(s for s in result.steps if s.step == "empathy_strategy")
    assert step.input["strategy_source"] == "prior" and step.input["goal_source"] == "strategy"
    assert result.empathy.strategy.value == step.input["prior"][0][0]
    assert result.empathy.goal == STRATEGY_GOAL[result.empathy.strategy]
    assert model.calls_for("StrategyDraft") == [] and model.calls_for("GoalDraft") == []
    assert '"goal"' not in model.calls_for("ResponseDraft")[0].prompt  # nothing of the step joins the chat
    assert f"p={step.input['prior'][0][1]:.2f}" in result.empathy.rationale


def test_the_llm_sets_the_goal_of_a_prior_strategy_when_asked():
    model = scripted()
    config = test_config(agents={"strategy_label": "prior", "goal_llm": "always"})
    result = make_empathizer(model, config).respond("My dog died yesterday.")
    assert len(model.calls_for("GoalDraft")) == 1 and result.empathy.goal == "comfort them"
    assert "comfort them" in model.calls_for("ResponseDraft")[0].prompt  # the goal reaches the reply's prompt


def test_an_unusable_plan_falls_back_to_the_prior_and_says_so():
    model = scripted(StrategyDraft="I would ask them a question")
    result = make_empathizer(model).respond("My dog died yesterday.")
    step = next(s for s in result.steps if s.step == "empathy_strategy")
    assert step.fallback and "prior" in step.fallback
    assert result.plan.text  # the person still got a reply


def test_an_unsure_prior_leaves_the_llm_its_likeliest_strategies_only():
    model = scripted(StrategyDraft={"strategy": "Question", "goal": "understand more"})
    config = test_config(agents={"strategy_label": "auto", "prior_min_confidence": 1.0})
    result = make_empathizer(model, config).respond("My dog died yesterday.")
    step = next(s for s in result.steps if s.step == "empathy_strategy")
    likeliest = [name for name, _ in step.input["prior"]][:3]
    prompt = model.calls_for("StrategyDraft")[0].prompt
    assert step.input["strategy_source"] == "llm" and not step.fallback
    assert result.empathy.rationale.startswith("chosen by the LLM among counsellors' likeliest strategies")
    offered = prompt.split("one of: ", 1)[1].split(")", 1)[0]
    assert offered.startswith(", ".join(likeliest)) and offered.count(",") == 3  # the prior's top 4


def test_the_llm_critic_runs_only_where_it_is_cheap_unless_asked():
    from empathygraph.agents.reflection import wants_llm_critic

    auto = test_config(agents={"reflection_llm": "auto"}).agents
    assert not wants_llm_critic(auto, "embedded") and wants_llm_critic(auto, "openai")
    assert wants_llm_critic(test_config().agents, "embedded")  # the tests' config says "always"
    model = scripted()
    make_empathizer(model, test_config(agents={"reflection_llm": "auto"})).respond("My dog died yesterday.")
    assert model.calls_for("ReflectionDraft") == []


def test_an_unsure_classifier_can_leave_the_llm_its_top_emotions_only():
    from empathygraph.agents.emotion_cause import llm_choices
    from empathygraph.schemas import LabelScore, TextEmotionCue

    cue = TextEmotionCue(top=[LabelScore(label=e, score=0.2) for e in ("sad", "lonely", "devastated", "afraid")],
                         model="test")
    assert llm_choices(cue, test_config(agents={"emotion_choices": 3}).agents) == ("sad", "lonely", "devastated")
    assert llm_choices(cue, test_config().agents) == ()

    class UnsureWords(ToolBox):
        def text_emotion(self, text, llm_state=None):
            return cue

    config = test_config(agents={"emotion_choices": 3}, perception={"text_emotion": True})
    model = scripted(LabelledCauseDraft={"scenario": "a loss", "emotion": "lonely", "quote": "My dog died",
                                         "intensity": "high"})
    result = make_empathizer(model, config, toolbox=UnsureWords(config.perception)).respond("My dog died yesterday.")
    assert "one of: sad, lonely, devastated" in model.calls_for("LabelledCauseDraft")[0].prompt
    assert result.emotion.emotion.value == "lonely" and result.emotion.label_source == "llm"


def test_the_trace_records_the_shared_chat_but_never_steers_it():
    """Prompts are built from the agents' chat, so what a step does to the trace cannot change them."""

    def tamper(state, runtime):
        for record in state["steps"]:
            record.raw_output, record.prompt = "tampered", [{"role": "human", "content": "tampered"}]
        return {}

    model = scripted()
    graph = build_graph(test_config(), insert_after={"emotion_cause": ("tamper", tamper)})
    make_empathizer(model, graph=graph).respond("Yesterday my dog died and the house is empty.")
    later = model.calls_for("StrategyDraft")[0].prompt
    assert "tampered" not in later and "my dog died" in later


def test_a_custom_agent_joins_the_chat_by_returning_its_exchange():
    def note(state, runtime):
        return {"chat": [Exchange(step="note", asked="Step: a note. JSON", answer='{"note": "be brief"}')]}

    model = scripted()
    graph = build_graph(test_config(), insert_after={"emotion_cause": ("note", note)})
    make_empathizer(model, graph=graph).respond("Yesterday my dog died and the house is empty.")
    messages = model.calls_for("StrategyDraft")[0].messages
    assert [m.content for m in messages[-3:-1]] == ["Step: a note. JSON", '{"note": "be brief"}']
