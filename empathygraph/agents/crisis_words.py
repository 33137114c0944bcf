"""The words of the crisis protocol: fixed texts, and the rules a generated acknowledgment must pass.

A crisis reply is one short sentence that acknowledges what the person said, then the fixed protocol
for each category found (most urgent first), the configured resources and an offer to stay. Said
again in one session, a category's protocol is its short form: the step that matters now, not the
whole text a second time. The acknowledgment may come from the LLM, but only if it passes
:func:`acknowledgment_problems`: one finished sentence, no question, no advice, nothing about a
method, means or place of harm, no blame, no mockery, nothing that makes it sound small or approves
it ("and it's okay"), no alarm, no stock opening ("I understand ..."), not their own words said
back, and said to them: a sentence without "you" was their message cut down ("dad collapsed in
kitchen, not answering me") or said about them ("The person is in danger of ..."). Otherwise a fixed
sentence for the category stands in. The protocol texts are conditional ("if you might act on
this"), so a false alarm still reads as care, not as an accusation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from empathygraph.agents.reply_checks import ABOUT_THEM, said_back, says_you
from empathygraph.agents.small_talk import Pleasantry
from empathygraph.phrasing import understanding_opening
from empathygraph.schemas import RiskCategory
from empathygraph.tools.safety import PatternHit


@dataclass(frozen=True)
class Protocol:
    """What the listener says for one risk category: a fallback acknowledgment, then the fixed steps.

    ``again`` is the steps' short form, for a session that was given them already.
    """

    acknowledgment: str
    steps: str
    goal: str
    danger: str  # what the acknowledgment must take seriously (told to the LLM that writes it)
    again: str
    unsure: str  # the acknowledgment of a tentative reading, which does not presume the danger
    unsure_steps: str | None = None  # steps that do not presume it either, where ``steps`` do

    def steps_for(self, tentative: bool) -> str:
        """The whole steps, in their unsure form for a tentative reading where they have one."""
        return (self.unsure_steps or self.steps) if tentative else self.steps


PROTOCOLS: dict[RiskCategory, Protocol] = {
    RiskCategory.MEDICAL_EMERGENCY: Protocol(
        acknowledgment="What you're describing sounds serious, and I'm worried about you.",
        steps="Please call your local emergency number now, or ask someone near you to call. If something was "
              "swallowed or taken, keep the packet to show them. Getting help quickly matters most.",
        goal="get them emergency medical help now",
        danger="their health, or someone's near them, is in danger right now",
        again="If it is still an emergency, please call your local emergency number now.",
        unsure="Thank you for telling me; I want to be sure you're okay.",
        unsure_steps="If this could be an emergency, please call your local emergency number now, or ask someone "
                     "near you to call. If something was swallowed or taken, keep the packet to show them.",
    ),
    RiskCategory.SELF_HARM: Protocol(
        acknowledgment="It sounds like you're carrying a huge amount of pain right now, and I'm really glad you told me.",
        steps="You don't have to face this alone. If you might act on these thoughts, or you're not safe right now, "
              "please reach out now, and if you can, put some distance between you and anything you could use to hurt "
              "yourself.",
        goal="keep them safe and connect them with crisis support now",
        danger="they may be thinking of ending their life or harming themselves",
        again="If you might act on these thoughts, or you're not safe right now, please reach out now.",
        unsure="Thank you for telling me this; I want to be sure you're okay.",
        unsure_steps="You don't have to face anything alone. If you ever have thoughts of hurting yourself, or "
                     "you're not safe right now, please reach out now.",
    ),
    RiskCategory.HARM_TO_OTHERS: Protocol(
        acknowledgment="It sounds like these thoughts are weighing on you, and it took courage to say them.",
        steps="Having thoughts like these doesn't make you a bad person, and you can get help with them. If you feel "
              "you might act on them, please step away from the person and anything that could hurt them, and call "
              "a crisis line or your local emergency number now.",
        goal="keep everyone safe and connect them with help now",
        danger="they may hurt someone, or fear that they will",
        again="If you feel you might act on these thoughts, please step away and call a crisis line or your local "
              "emergency number now.",
        unsure="Thank you for telling me what's on your mind; I want to be sure everyone stays safe.",
        unsure_steps="If you ever feel you might hurt someone, please step away and call a crisis line or your local "
                     "emergency number now; help with thoughts like that is there for you.",
    ),
    RiskCategory.ABUSE: Protocol(
        acknowledgment="Thank you for trusting me with this; what is happening to you is not okay, and it is not your fault.",
        steps="Your safety matters most. If you are in danger right now, please call your local emergency number. "
              "When it is safe to, a confidential helpline can help you plan your next steps.",
        goal="affirm it is not their fault and connect them with help",
        danger="someone is harming, threatening or controlling them",
        again="If you are in danger right now, please call your local emergency number.",
        unsure="Thank you for telling me this; I want to be sure you're safe.",
        unsure_steps="If anyone is hurting, threatening or controlling you, or you're not safe right now, please call "
                     "your local emergency number; a confidential helpline can help you work out what to do.",
    ),
}
# The acknowledgment when a phrase said how (the patterns' kind, in the category the reply speaks to first) and the
# reading is plain: closer to what they said than the category's sentence.
SAID_AS: dict[str, str] = {
    "direct_statement": "It sounds like you're in so much pain that you can't see a way to go on, and I'm really "
                        "glad you told me.",
    "wish_to_die": "It sounds like you're in so much pain that you can't see a way to go on, and I'm really glad "
                   "you told me.",
    "burden": "Feeling like a burden to the people around you is so painful, and I'm really glad you told me.",
    "farewell": "It sounds like you've been saying your goodbyes, and I'm really glad you told me.",
    "plan_or_means": "It sounds like things have got so hard that you've been thinking about ending your life, and "
                     "I'm really glad you told me.",
    "self_injury": "It sounds like you've been hurting yourself to get through a lot of pain, and I'm really glad "
                   "you told me.",
    "eating_disorder": "Going without food like this is serious, and I'm worried about you.",
    "overdose_taken": "What you've taken could be dangerous, and I'm worried about you.",
    "intrusive_harm_thoughts": "Unwanted thoughts like these can be terrifying, and it took courage for you to tell "
                               "me.",
}
STAY = "I'm here with you, and I'd like to hear how you're doing right now."
AGAIN = "What I said earlier still stands."
AGAIN_ACKNOWLEDGMENT = "Thank you for telling me how things are with you."
# A session given the protocol already that now only greets, thanks or says goodbye is answered in kind, by rule:
# asked to acknowledge "ok thanks" as serious, the 1.5B model described the message or retold its task.
AGAIN_PLEASANTRY: dict[Pleasantry, str] = {
    "greeting": "I'm glad you came back to talk with me.",
    "thanks": "You're welcome, and I'm glad you're still talking with me.",
    "farewell": "Take good care of yourself until we talk again.",
}
FOLLOW_UP = ("I'm still thinking about what you told me earlier. If those feelings come back, or you're not safe, "
             "please reach out:")
# After disclosures that were all read as unsure (most false alarms are): where help is, nothing presumed.
FOLLOW_UP_UNSURE = "If you ever need someone to talk to right away, they are there for you:"

# What an acknowledgment must never contain. Means, methods and places of harm (repeating them
# can prompt them); questions (a question here could ask about means); advice (the protocol
# gives the steps); blame, dismissal and mockery.
_MEANS = re.compile(
    r"\b(?:pills?|tablets?|meds|medication|overdos\w*|dose|rope|noose|hang\w*|gun|rifle|revolver|weapon|knife|knives|"
    r"blade|razor|cut\w*|burn\w*|bridge|roof|ledge|edge|train|tracks|jump\w*|poison\w*|bleach|hose|car|drown\w*|"
    r"starv\w*|self[- ]?harm\w*|method|plan\w*|kill\w*|suicid\w*|die|dying|death|dead)\b", re.IGNORECASE)
_BLAME = re.compile(
    r"\b(?:(?<!not )(?<!n't )your (?:own )?fault|you should(?:n'?t)? have|why (?:did|would|do) you|selfish|overreact\w*|dramatic|"
    r"attention|calm down|not that bad|could be worse|get over|snap out|silly|stupid|crazy|lol|haha|joke|joking|"
    r"just kidding|grateful|lucky)\b", re.IGNORECASE)
# Making it small: a danger read as an everyday upset ("it's frustrating to lose your phone" to
# someone who is threatened; "you're feeling so anxious about something with peanut" to a throat closing).
# Mild feeling words and softeners never fit a disclosure of danger.
_MINIMISE = re.compile(
    r"\b(?:a (?:bit|little)|slightly|somewhat|kind of|sort of|frustrat\w*|annoy\w*|inconvenien\w*|irritat\w*|"
    r"bummer|a pain|disappoint\w*|bother\w*|not ideal|rough day|bad day|hassle|tricky|anxious|anxiety|nervous|"
    r"stress\w*|tough)\b", re.IGNORECASE)
# Approval of what they said or plan: the default 1.5B model, asked to answer tentative readings in its own words
# (2026-12-07, not shipped), wrote "You've been skipping insulin because it's expensive, and it's okay." and "You're
# right, it's a very sad situation." to "He's a dead man." Validation of a feeling ("it's okay to feel scared") passes.
_APPROVES = re.compile(
    r"\b(?:you'?re|you\s+are)\s+(?:so\s+|absolutely\s+|totally\s+|completely\s+)?right\b|"
    r"\b(?:it'?s|that'?s|which\s+is|this\s+is)\s+(?:totally\s+|perfectly\s+|completely\s+)?(?:okay|ok|fine|alright|"
    r"all\s+right|normal)\b(?!\s+(?:to|not|if|that)\b)", re.IGNORECASE)
_ADVICE = re.compile(r"\b(?:you should|you need to|you must|try to|have you tried|make sure|don'?t worry)\b", re.IGNORECASE)
# Numbers, links and addresses: only the configured resources may name a way to get help (the
# person's own words may carry a fake helpline for the model to repeat).
_CONTACT = re.compile(r"\d[\d\s().+-]{2,}\d|\b(?:https?://|www\.)\S+|\b\S+\.(?:com|org|net|gov|uk|io)\b|\S+@\S+",
                      re.IGNORECASE)
MAX_WORDS = 30


def acknowledgment_problems(text: str, user_words: str = "", task: str = "", earlier: Sequence[str] = ()) -> list[str]:
    """Why a generated acknowledgment of ``user_words``, asked for by ``task``, may not stand (empty when it may);
    ``earlier``: the listener's earlier replies in the session, which it may not say again."""
    problems = []
    stripped = text.strip()
    if not stripped:
        return ["empty"]
    if user_words and (run := said_back(stripped, user_words)):
        # Their words said back, in their own first person: "I'm scared I'll throw him out the window".
        problems.append(f'repeats their words ("{run} ...")')
    if task and (run := said_back(stripped, task)):
        # The task told back ("you told me something serious and you gave me the steps and where to get help").
        problems.append(f'repeats the instructions ("{run} ...")')
    if any(said_back(stripped, reply) for reply in earlier):
        # The last turn's acknowledgment again, word for word, to "what should I do?".
        problems.append("says an earlier reply again")
    if not re.search(r"[.!][\"')]*$", stripped):
        problems.append("not a finished sentence")
    if not says_you(stripped):
        # Said about them or as them, not to them: "The person is in danger of ...", "dad collapsed in kitchen".
        problems.append('not said to them (no "you")')
    if found := understanding_opening(stripped):
        # "I understand how difficult it must be to feel this way": 8 of the first 20 the 1.5B model wrote,
        # none about what they said; the category's fixed sentence reads better.
        problems.append(f'opens with a stock phrase ("{found}")')
    if "?" in stripped:
        problems.append("asks a question")
    if len(re.findall(r"[.!]\s+\S", stripped)) > 0:
        problems.append("more than one sentence")
    if len(stripped.split()) > MAX_WORDS:
        problems.append(f"longer than {MAX_WORDS} words")
    for name, pattern in (("names a means, method or place of harm", _MEANS), ("blames, dismisses or mocks", _BLAME),
                          ("talks about them, not to them", ABOUT_THEM),
                          ("makes it sound small", _MINIMISE), ("gives advice", _ADVICE), ("approves it", _APPROVES),
                          ("names a number or link", _CONTACT)):
        found = pattern.search(stripped)
        if found:
            problems.append(f"{name} ('{found.group(0)}')")
    return problems


def protocol_categories(categories: list[RiskCategory]) -> list[RiskCategory]:
    """The categories that have a protocol, most urgent first (self-harm's, the widest, when none has)."""
    return [c for c in categories if c in PROTOCOLS] or [RiskCategory.SELF_HARM]


def said_as(categories: list[RiskCategory], hits: Sequence[PatternHit]) -> str | None:
    """How a phrase said the risk of the category the reply speaks to first, where ``SAID_AS`` has words for it."""
    first = protocol_categories(categories)[0]
    return next((hit.kind for hit in hits if hit.category is first and hit.kind in SAID_AS), None)


def given_before(categories: list[RiskCategory], given: frozenset[RiskCategory]) -> bool:
    """Whether the session was given the protocol of every category found (the reply is then its short form)."""
    return all(c in given for c in protocol_categories(categories))


def protocol_reply(categories: list[RiskCategory], acknowledgment: str | None, resources: list[str],
                   given: frozenset[RiskCategory] = frozenset(), tentative: bool = False,
                   said_as: str | None = None) -> str:
    """The whole crisis reply: an acknowledgment, each category's steps (most urgent first), resources, presence.

    Args:
        categories: the categories found, most urgent first (at least one).
        acknowledgment: a sentence that passed :func:`acknowledgment_problems`, or None for the fixed one.
        resources: the configured helplines and numbers, in order (always given in full).
        given: categories whose protocol this session was given already: their short form. When every
            category was, the reply says that the earlier words still stand.
        tentative: the danger was not read as plainly said: the fixed words that would presume it give way
            to their unsure forms (most false alarms are read so; the resources are the same).
        said_as: how a phrase said the first category's risk (a key of ``SAID_AS``): its acknowledgment
            stands in for the category's when no other is given and the reading is plain.
    """
    known, repeat = protocol_categories(categories), given_before(categories, given)
    first = PROTOCOLS[known[0]]
    opening = acknowledgment or (AGAIN_ACKNOWLEDGMENT if repeat else first.unsure if tentative
                                 else SAID_AS.get(said_as or "", first.acknowledgment))
    steps = [PROTOCOLS[c].again if c in given else PROTOCOLS[c].steps_for(tentative) for c in known]
    return " ".join([opening, *([AGAIN] if repeat else []), *steps, *resources, STAY])


def recalled(reply: str, protocol: bool) -> str | None:
    """A reply as later prompts show it: a crisis reply's acknowledgment, or an ordinary reply without the careful
    reminder, each naming what followed instead of repeating it (None: the reply as it is). Fed back whole, a
    hundred words of helplines a turn grew every prompt by hundreds of tokens, and the model copied them."""
    if protocol:
        opening = re.split(r"(?<=[.!])\s+", reply.strip(), maxsplit=1)[0]
        return f"{opening} (then the safety steps and where to get help)"
    for reminder in (FOLLOW_UP, FOLLOW_UP_UNSURE):
        if reminder in reply:
            return f"{reply[: reply.index(reminder)].strip()} (and a reminder of where to get help)"
    return None


def follow_up(resources: list[str], unsure: bool = False) -> str:
    """The reminder a careful session adds to an ordinary reply after an earlier disclosure (``unsure``: every
    earlier one was read as unsure, so it presumes nothing)."""
    return " ".join([FOLLOW_UP_UNSURE if unsure else FOLLOW_UP, *resources])
