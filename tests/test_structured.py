"""Structured output: validation, the bounded repair loop and honest fallbacks."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from empathygraph import Empathizer
from empathygraph.agents.emotion_cause import CauseDraft, LabelledCauseDraft
from empathygraph.agents.structured import ask, clip_text, parse_json_answer
from empathygraph.backbones import ScriptedChatModel, wrap_chat_model
from empathygraph.backbones.base import json_schema_format, without_max_length
from empathygraph.backbones.retry import RetryPolicy
from empathygraph.errors import BackendError
from tests.conftest import make_empathizer, scripted, test_config

MESSAGES = [SystemMessage(content="s"), HumanMessage(content="u")]
GOOD = {"scenario": "s", "emotion": "sad", "quote": "c", "intensity": "low"}


def test_invalid_json_is_repaired_with_the_error_shown_to_the_model():
    model = ScriptedChatModel(script={"LabelledCauseDraft": ["{not json", GOOD]})
    answer = ask(wrap_chat_model(model), MESSAGES, LabelledCauseDraft, repair_attempts=1)
    assert answer.parsed is not None and answer.retries == 1
    assert "not usable" in str(model.calls[1].messages[-1].content)
    assert answer.attempts[0].error


def test_label_outside_the_enum_is_rejected():
    model = ScriptedChatModel(script={"LabelledCauseDraft": [{**GOOD, "emotion": "melancholic"}]})
    answer = ask(wrap_chat_model(model), MESSAGES, LabelledCauseDraft, repair_attempts=2)
    assert answer.parsed is None and len(answer.attempts) == 3
    assert "emotion" in answer.error


def test_code_fences_and_chatter_around_json_are_tolerated():
    parsed = parse_json_answer('Sure!\n```json\n{"scenario": "s", "emotion": "sad", "quote": "c", "intensity": "low"}\n```', LabelledCauseDraft)
    assert parsed.emotion.value == "sad"


def test_unquoted_cause_is_asked_again_then_falls_back_to_the_nearest_sentence_marked_as_such():
    model = scripted(LabelledCauseDraft={**GOOD, "quote": "grief over a pet"})
    result = make_empathizer(model).respond("My dog died. I keep looking for him at the door.")
    step = next(s for s in result.steps if s.step == "emotion_cause")
    assert step.retries == 1 and step.fallback and "nearest sentence" in step.fallback
    assert result.emotion.causes == ["My dog died."]


def test_a_cause_copied_loosely_is_mapped_back_to_the_users_exact_words():
    model = scripted(LabelledCauseDraft={**GOOD, "quote": "i keep looking for him at door"})
    result = make_empathizer(model).respond("My dog died. I keep looking for him at the door!")
    assert result.emotion.causes == ["I keep looking for him at the door"]


def test_a_reply_that_never_validates_becomes_a_safe_fallback_reply_marked_in_the_trace():
    # Seen on the embedded model: "invalid QuestionReplyDraft: no JSON object in the answer" twice,
    # and the person got no reply at all.
    model = scripted(StrategyDraft={"goal": "understand", "strategy": "Question"}, ResponseDraft="I think")
    result = make_empathizer(model).respond("My dog died.")
    step = result.last("response")
    assert len(step.attempts) == 2 and "no JSON object" in step.error
    assert step.fallback.startswith("FALLBACK REPLY")
    assert result.plan.text == "That sounds hard, and it makes sense that you feel sad. I'm here with you. " \
        "What feels most important about it right now?"


def test_an_analysis_that_never_validates_falls_back_to_the_classifier_and_the_first_clause():
    model = scripted(LabelledCauseDraft="{broken")
    result = make_empathizer(model).respond("My dog died last night, and the house is so quiet.")
    assert result.emotion.label_source == "fallback" and result.emotion.causes == ["My dog died last night"]
    assert "LLM analysis unusable" in result.last("emotion_cause").fallback
    assert result.reply  # the turn still answers


def test_a_failing_backbone_is_retried_then_reported_as_a_backend_error():
    def boom(messages, schema):
        raise ConnectionError("connection refused")

    model = ScriptedChatModel(script={"*": boom})
    backbone = wrap_chat_model(model)
    backbone.retry = RetryPolicy(retries=2, backoff_s=0.0)
    with pytest.raises(BackendError, match="after 3 tries: ConnectionError: connection refused"):
        Empathizer(test_config(), backbone=backbone).respond("My dog died.")
    assert len(model.calls) == 3


def test_a_backbone_error_that_is_not_transient_is_not_retried():
    def bad_request(messages, schema):
        raise ValueError("schema rejected")

    model = ScriptedChatModel(script={"*": bad_request})
    with pytest.raises(BackendError, match="failed: ValueError: schema rejected"):
        make_empathizer(model).respond("My dog died.")
    assert len(model.calls) == 1


def test_session_keeps_earlier_turns_when_a_turn_fails():
    model = scripted()
    empathizer = make_empathizer(model, test_config())
    empathizer.respond("My dog died.", session_id="s")

    def bad_request(messages, schema):
        raise ValueError("schema rejected")

    model.script["ResponseDraft"] = bad_request
    with pytest.raises(BackendError):
        empathizer.respond("And my cat is sick.", session_id="s")
    model.script["StrategyDraft"] = {"goal": "g", "strategy": "Question", "rationale": "r"}
    model.script["ResponseDraft"] = {"reply": "How is your cat doing now?"}
    result = empathizer.respond("The vet called back.", session_id="s")
    assert [h.turn_index for h in empathizer.history("s")] == [0, 1]
    assert result.turn_index == 1


def test_llama_grammar_schema_drops_max_length_but_keeps_enums():
    schema = without_max_length(json_schema_format(LabelledCauseDraft)["json_schema"]["schema"])
    assert "maxLength" not in str(schema)
    assert "melancholic" not in str(schema) and "devastated" in str(schema)


def test_a_reply_cut_off_mid_json_keeps_its_complete_sentences_and_says_so():
    cut = '{"reply": "I am so sorry about your dog. He was lucky to have you. And I think that'
    model = scripted(ResponseDraft=[cut, cut])
    result = make_empathizer(model).respond("My dog died.")
    assert result.plan.text == "I am so sorry about your dog. He was lucky to have you."
    step = next(s for s in result.steps if s.step == "response")
    assert "cut off" in step.fallback


def test_cut_json_keeps_complete_sentences_of_its_last_field_and_reads_escapes():
    from empathygraph.agents.reply_drafts import ResponseDraft
    from empathygraph.agents.structured import close_cut_json

    cut = '{"reply": "You said \\"never again\\". That hurts. And I'
    assert close_cut_json(cut, ResponseDraft).reply == 'You said "never again". That hurts.'
    assert close_cut_json('{"answer": "hi. there', ResponseDraft) is None  # not the schema
    assert close_cut_json('{"reply": "done."} trailing', ResponseDraft) is None  # not cut off


def test_every_agent_bounds_its_answer_length_at_decode_time():
    model = scripted(ReflectionDraft={"verdict": "accept", "advice": ""})
    make_empathizer(model).respond("My dog died.")
    bounds = {call.schema_name: call.options.get("max_tokens") for call in model.calls}  # first tries only here
    assert all(isinstance(bound, int) and bound <= 128 for bound in bounds.values()), bounds
    assert set(bounds) == {"LabelledCauseDraft", "StrategyDraft", "ResponseDraft", "ReflectionDraft"}


def test_an_answer_cut_inside_its_first_sentence_is_asked_again():
    from empathygraph.agents.empathy_strategy import StrategyDraft
    from empathygraph.agents.structured import close_cut_json

    assert close_cut_json('{"strategy": "Question", "goal": "They need', StrategyDraft) is None
    cut = '{"strategy": "Question", "goal": "Give them room. Ask gently'
    assert close_cut_json(cut, StrategyDraft).goal == "Give them room."


def test_a_field_that_may_be_clipped_keeps_its_whole_words():
    from empathygraph.agents.empathy_strategy import StrategyDraft
    from empathygraph.agents.structured import close_cut_json

    cut = '{"strategy": "Question", "goal": "help them feel less anxious about the fin'
    assert close_cut_json(cut, StrategyDraft, words_ok=True).goal == "help them feel less anxious about the…"
    assert close_cut_json('{"strategy": "Question", "goal": "help th', StrategyDraft,
                          words_ok=True) is None  # too little left to mean anything


def test_an_over_long_reply_is_trimmed_at_a_sentence_end_without_asking_again():
    long_reply = "I am so sorry. " + " ".join(["You have carried so much, and it shows."] * 8)
    model = scripted(ResponseDraft={"reply": long_reply})
    result = make_empathizer(model).respond("My dog died.")
    assert len(model.calls_for("ResponseDraft")) == 1
    assert len(result.plan.text.split()) <= 40 and result.plan.text.endswith(".")
    step = next(s for s in result.steps if s.step == "response")
    assert "trimmed" in step.fallback


def test_a_re_ask_after_a_cut_off_answer_gets_twice_the_first_budget():
    cut = '{"goal": "help them feel heard about the dog and the'
    model = scripted(StrategyDraft=[cut, {"goal": "g", "strategy": "Question", "rationale": "r"}])
    make_empathizer(model).respond("My dog died.")
    first, second = model.calls_for("StrategyDraft")
    assert second.options.get("max_tokens") == 2 * first.options["max_tokens"]


def test_a_trimmed_question_reply_keeps_its_question():
    from empathygraph.agents.response import trim_to_sentences

    reply = "I hear you. That must hurt a lot after all that work. Let's look at it together. What stung most? And why?"
    assert trim_to_sentences(reply, 16) == "I hear you. That must hurt a lot after all that work."
    assert trim_to_sentences(reply, 16, keep_question=True) == (
        "I hear you. That must hurt a lot after all that work. What stung most?")
    assert trim_to_sentences(reply, 10, keep_question=True) == "I hear you. What stung most?"
    assert trim_to_sentences("What stung most about it all?", 3, keep_question=True) == "What stung most about it all?"


def test_a_question_reply_that_asks_nothing_is_ended_with_a_question_asked_for_on_its_own():
    from empathygraph.graphs.registry import view

    # One "reply" field for every strategy: the two-part {acknowledgment, question} answer read as
    # "I understand ... What do you think about ...?". A Question reply without a question keeps its words
    # and is asked only for a question to end it (a rewrite decoded the whole reply again).
    model = scripted(StrategyDraft={"goal": "understand more", "strategy": "Question"},
                     ResponseDraft={"reply": "That's a hard loss."}, FollowUpQuestion={"question": "What was he like?"})
    result = make_empathizer(model).respond("My dog died.")
    [draft] = model.calls_for("ResponseDraft")
    [follow_up] = model.calls_for("FollowUpQuestion")
    assert '{"reply": "..."}' in draft.prompt and "acknowledgment" not in draft.prompt
    assert follow_up.messages[:-2] == draft.messages
    assert follow_up.messages[-2].content == '{"reply":"That\'s a hard loss."}'  # as llama.cpp writes it
    assert result.plan.text == "That's a hard loss. What was he like?"
    steps = [step.step for step in result.steps]
    assert steps.index("follow_up_question") == steps.index("response") + 1
    assert view("follow_up_question").label == "follow-up question"  # the trace views know the step


def test_a_question_dropped_by_the_checks_is_replaced_and_an_unusable_one_is_sent_back():
    # The draft's stock question is left out and one asked for on its own ends the reply; when that one is
    # unusable too, reflection sends the reply back for a rewrite as before.
    model = scripted(StrategyDraft={"goal": "understand more", "strategy": "Question"},
                     ResponseDraft=[{"reply": "That's a hard loss. How does that make you feel?"},
                                    {"reply": "Oh, that's so hard. How old was he?"}],
                     FollowUpQuestion=[{"question": "What do you think about it?"}])
    result = make_empathizer(model).respond("My dog died.")
    _first_draft, second = model.calls_for("ResponseDraft")
    assert "asks nothing" in second.prompt
    assert result.plan.text == "Oh, that's so hard. How old was he?"
    assert len(model.calls_for("FollowUpQuestion")) == 1


def test_a_long_question_reply_is_trimmed_before_its_question():
    model = scripted(StrategyDraft={"goal": "understand more", "strategy": "Question"},
                     ResponseDraft={"reply": "That's so hard. " + "He was clearly a loyal and loving companion "
                                    "to you and your family for many years. " * 2 + "What was he like?"})
    result = make_empathizer(model).respond("My dog died.")
    assert result.plan.text == (
        "That's so hard. He was clearly a loyal and loving companion to you and your family for many years. What was he like?")


def test_a_free_text_field_written_too_long_is_cut_at_a_sentence_not_refused():
    rambling = "They said hello. " * 20
    draft = CauseDraft.model_validate({"scenario": rambling, "quote": "hello", "intensity": "low"})
    assert len(draft.scenario) <= 200 and draft.scenario.endswith("They said hello.")
    assert clip_text("one two three four five", 12) == "one two…"
    assert clip_text("short", 12) == "short"
    assert clip_text(42, 12) == 42  # not text: left for the schema to refuse
