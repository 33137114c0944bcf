"""The crisis reply: what a generated acknowledgment may never say, and how the protocol is composed."""

from __future__ import annotations

import pytest

from empathygraph.agents.crisis_words import (
    AGAIN,
    AGAIN_ACKNOWLEDGMENT,
    PROTOCOLS,
    SAID_AS,
    STAY,
    acknowledgment_problems,
    follow_up,
    protocol_reply,
    said_as,
)
from empathygraph.config import SafetyConfig
from empathygraph.schemas import RiskCategory
from empathygraph.tools import safety


@pytest.mark.parametrize("text", [
    "How many pills do you have with you?",
    "It sounds like you want to take the pills tonight.",
    "You should have told someone sooner.",
    "Why did you let him do that to you.",
    "That's a bit dramatic, but I hear you.",
    "Try to think about the good things in your life.",
    "It sounds hard. But you are strong.",
    "I understand you feel grateful.",
    "They just said 'ok thanks', which is a simple acknowledgment of what they just told you.",
    "The person seems to be going through something very hard.",
])
def test_an_acknowledgment_that_asks_names_means_blames_or_advises_is_refused(text):
    assert acknowledgment_problems(text), text


@pytest.mark.parametrize("text", [
    "You've been skipping your doses because they cost so much, and it's okay.",
    "You're right, it's a very sad situation.",
    "You only had a few, which is fine.",
])
def test_an_acknowledgment_that_approves_what_they_said_is_refused(text):
    assert any("approves it" in p for p in acknowledgment_problems(text)), text


@pytest.mark.parametrize("text", [
    "It's okay to feel scared right now, and I'm glad you told me.",
    "What is happening to you is not okay, and it is not your fault.",
    "I want to be sure you're okay.",
])
def test_validating_a_feeling_is_not_approval(text):
    assert not any("approves it" in p for p in acknowledgment_problems(text)), text


def test_an_acknowledgment_that_says_their_words_back_is_refused():
    """Seen on the tricky set (2026-12-01, paraphrased): the acknowledgment retold a joke's violent words as the listener's own."""
    said = "If my coworker taps his pen one more time I'm scared I'll throw him out the window."
    retold = "The coworker is tapping his pen one more time, and I'm scared I'll throw him out the window."
    assert any("repeats their words" in p for p in acknowledgment_problems(retold, said))
    assert acknowledgment_problems("That sounds like a lot of anger for you to be holding at work.", said) == []


def test_an_acknowledgment_not_said_to_them_is_refused():
    """Seen on emergencies (2026-12-02): their message cut down, and the analysis voice, as acknowledgments."""
    said = "my dad just collapsed in the kitchen and he isn't answering me"
    problems = acknowledgment_problems("dad collapsed in kitchen, not answering me", said)
    assert 'not said to them (no "you")' in problems and "not a finished sentence" in problems
    assert 'not said to them (no "you")' in acknowledgment_problems(
        "The person is in danger of losing their father, which is terrifying.", said)
    assert acknowledgment_problems("That must be terrifying, and I'm so glad you reached out right away.", said) == []


def test_a_stock_opening_is_refused():
    problems = acknowledgment_problems("I understand how difficult it must be for you to feel this way.")
    assert problems == ['opens with a stock phrase ("i understand")']


def test_an_acknowledgment_that_tells_its_task_back_is_refused():
    """Seen in a chat (2026-12-01): asked for the protocol's second acknowledgment, the 1.5B model retold its task."""
    task = ("Earlier they told you something serious, and you gave them the steps and where to get help. "
            "In one short, warm sentence said to them, answer what they just said.")
    retold = "you told me something serious and you gave me the steps and where to get help"
    assert any("repeats the instructions" in p for p in acknowledgment_problems(retold, "ok", task))
    assert acknowledgment_problems("I'm glad you're still here with me.", "ok", task) == []


def test_an_acknowledgment_said_in_an_earlier_reply_is_refused():
    said = "I understand how hard it must be to stay late every night with more work piled on."
    earlier = [f"{said} (then the safety steps and where to get help)"]
    assert "says an earlier reply again" in acknowledgment_problems(said, "what should I do?", earlier=earlier)
    assert acknowledgment_problems("It makes sense that you want to know what to do next.", "what should I do?",
                                   earlier=earlier) == []


@pytest.mark.parametrize("text", [
    "That sounds like an unbearable amount of pain to be carrying on your own.",
    "I'm so sorry you've been living with this fear at home.",
    "What they said to you was cruel, and you didn't deserve any of it.",
])
def test_a_warm_reflection_passes(text):
    assert acknowledgment_problems(text) == []


@pytest.mark.parametrize("text", [
    "It must be frustrating to lose your phone like that.",
    "That sounds a little stressful.",
    "It's annoying when people don't respect your space.",
    "What a hassle to deal with all of this.",
])
def test_an_acknowledgment_that_makes_a_danger_sound_small_is_refused(text):
    assert any("sound small" in p for p in acknowledgment_problems(text)), text


def test_the_acknowledgment_task_names_the_danger_of_each_category_found():
    from empathygraph.agents.crisis import acknowledge_task

    task = acknowledge_task([RiskCategory.ABUSE, RiskCategory.SELF_HARM])
    assert PROTOCOLS[RiskCategory.ABUSE].danger in task and PROTOCOLS[RiskCategory.SELF_HARM].danger in task
    assert PROTOCOLS[RiskCategory.SELF_HARM].danger in acknowledge_task([])


def test_every_category_has_a_fixed_acknowledgment_that_passes_its_own_rules():
    for category, protocol in PROTOCOLS.items():
        assert acknowledgment_problems(protocol.acknowledgment) == [], category
        assert acknowledgment_problems(protocol.unsure) == [], category
    for kind, text in SAID_AS.items():
        assert acknowledgment_problems(text) == [], kind


def test_how_a_phrase_said_it_chooses_the_acknowledgment_of_the_category_spoken_to_first():
    hits = safety.find("I swallowed all my pills an hour ago and I've written my goodbye letters")
    categories = [RiskCategory.MEDICAL_EMERGENCY, RiskCategory.SELF_HARM]
    assert said_as(categories, hits) == "overdose_taken"
    assert said_as([RiskCategory.SELF_HARM], hits) in {"farewell", "plan_or_means"}
    assert said_as([RiskCategory.ABUSE], hits) is None
    reply = protocol_reply(categories, None, ["call 988"], said_as="overdose_taken")
    assert reply.startswith(SAID_AS["overdose_taken"])
    assert protocol_reply(categories, None, [], tentative=True, said_as="overdose_taken").startswith(
        PROTOCOLS[RiskCategory.MEDICAL_EMERGENCY].unsure)


def test_a_tentative_reading_does_not_presume_the_danger_but_keeps_every_resource():
    resources = ["call 988"]
    sure = protocol_reply([RiskCategory.MEDICAL_EMERGENCY, RiskCategory.ABUSE], None, resources)
    unsure = protocol_reply([RiskCategory.MEDICAL_EMERGENCY, RiskCategory.ABUSE], None, resources, tentative=True)
    medical, abuse = PROTOCOLS[RiskCategory.MEDICAL_EMERGENCY], PROTOCOLS[RiskCategory.ABUSE]
    assert sure.startswith(medical.acknowledgment) and medical.steps in sure
    assert unsure.startswith(medical.unsure) and medical.unsure_steps in unsure and medical.steps not in unsure
    # "Your safety matters most ... plan your next steps" presumes abuse (read as unsure for a scratched car).
    assert abuse.unsure_steps in unsure and abuse.steps not in unsure and "call 988" in unsure
    given = frozenset({RiskCategory.MEDICAL_EMERGENCY, RiskCategory.ABUSE})
    assert protocol_reply(list(given), None, resources, given, tentative=True).startswith(AGAIN_ACKNOWLEDGMENT)


def test_the_reply_speaks_to_each_category_most_urgent_first_then_resources_then_presence():
    resources = SafetyConfig().resources_for([RiskCategory.MEDICAL_EMERGENCY, RiskCategory.SELF_HARM])
    reply = protocol_reply([RiskCategory.MEDICAL_EMERGENCY, RiskCategory.SELF_HARM], None, resources)
    medical = reply.index(PROTOCOLS[RiskCategory.MEDICAL_EMERGENCY].steps)
    self_harm = reply.index(PROTOCOLS[RiskCategory.SELF_HARM].steps)
    assert reply.startswith(PROTOCOLS[RiskCategory.MEDICAL_EMERGENCY].acknowledgment)
    assert medical < self_harm < reply.index(resources[0]) < reply.index(STAY)


def test_abuse_adds_its_own_helpline_before_the_general_ones():
    config = SafetyConfig()
    resources = config.resources_for([RiskCategory.ABUSE])
    assert resources[0] == config.resources_by_category[RiskCategory.ABUSE][0]
    assert resources[1:] == config.resources


def test_a_passing_acknowledgment_replaces_the_fixed_one():
    own = "That sounds frightening, and you deserved to be safe."
    reply = protocol_reply([RiskCategory.ABUSE], own, ["R"])
    assert reply.startswith(own) and PROTOCOLS[RiskCategory.ABUSE].acknowledgment not in reply


def test_a_protocol_given_before_in_the_session_is_said_in_its_short_form_with_every_resource():
    resources = SafetyConfig().resources_for([RiskCategory.SELF_HARM])
    reply = protocol_reply([RiskCategory.SELF_HARM], None, resources, frozenset({RiskCategory.SELF_HARM}))
    assert reply.startswith(f"{AGAIN_ACKNOWLEDGMENT} {AGAIN} {PROTOCOLS[RiskCategory.SELF_HARM].again}")
    assert PROTOCOLS[RiskCategory.SELF_HARM].steps not in reply
    assert all(r in reply for r in resources) and reply.endswith(STAY)
    assert len(reply.split()) < len(protocol_reply([RiskCategory.SELF_HARM], None, resources).split())


def test_a_new_category_in_a_careful_session_gets_its_whole_protocol_first():
    reply = protocol_reply([RiskCategory.ABUSE, RiskCategory.SELF_HARM], None, ["R"], frozenset({RiskCategory.SELF_HARM}))
    assert reply.startswith(PROTOCOLS[RiskCategory.ABUSE].acknowledgment) and AGAIN not in reply
    assert reply.index(PROTOCOLS[RiskCategory.ABUSE].steps) < reply.index(PROTOCOLS[RiskCategory.SELF_HARM].again)


def test_every_short_form_still_says_what_to_do_now():
    for category, protocol in PROTOCOLS.items():
        assert "now" in protocol.again and len(protocol.again.split()) < len(protocol.steps.split()), category


def test_the_follow_up_lists_the_resources():
    assert follow_up(["R1", "R2"]).endswith("R1 R2")


def test_saying_it_is_not_their_fault_is_not_blame_but_saying_it_is_is():
    assert acknowledgment_problems("Honestly this is partly your own fault.")
    assert acknowledgment_problems("It is not your fault, and you deserve to be safe.") == []
    assert acknowledgment_problems("It isn't your fault that he did this.") == []


def test_every_protocol_whose_steps_presume_the_danger_has_an_unsure_form():
    """A wi-fi message read as unsure must not be told "if you might act on these thoughts"."""
    presuming = ("these thoughts", "on them", "from the person")
    for category, protocol in PROTOCOLS.items():
        unsure = protocol.steps_for(tentative=True)
        assert not any(words in unsure for words in presuming), category
        if any(words in protocol.steps for words in presuming):
            assert protocol.unsure_steps, category
    reply = protocol_reply([RiskCategory.SELF_HARM, RiskCategory.HARM_TO_OTHERS], None, ["call 988"], tentative=True)
    assert "these thoughts" not in reply and "call 988" in reply
