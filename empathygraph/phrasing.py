"""Phrasings a caring reply avoids, read from its words: shared by the reply checks and the style figures.

- an "I understand / I see / I hear" opening (after an interjection such as "Oh," and with
  "can", "do", "totally" ... allowed between);
- a label told to the person as their feeling ("you feel grateful", "you're feeling so
  anxious", "are you excited", "it's normal to feel lonely"); a label said about someone else
  ("I'm so proud of you") or negated ("you shouldn't feel guilty") does not count;
- a stock question that fits any message ("what do you think about", "how does that make you
  feel", "can you tell me more?", "how about you?" ...).

The reflection step sends a reply with one of them back for a rewrite (``agents/reply_checks.py``);
the evaluation counts them (``eval/style.py``). Regular expressions alone: no model is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from empathygraph.schemas import EDEmotion

_INTERJECTION = r"(?:(?:oh|ah|aw+|wow|well|yes|yeah|hmm+|okay|ok|so|honestly)\W+)*"
_UNDERSTAND = re.compile(
    rf"^\W*{_INTERJECTION}i\s+(?:(?:can|do|totally|completely|fully|really|definitely|truly|just|absolutely)\s+)*"
    r"(?:understand|see|hear)\b")
# What may stand between the attribution to "you" and the label: degree words and "feeling".
_MODIFIERS = (r"(?:\s+(?:so|really|very|quite|pretty|a\s+bit|a\s+little|little|kind\s+of|sort\s+of|somewhat|extremely|"
              r"incredibly|super|truly|deeply|understandably|rightfully|rightly|justifiably|totally|completely|"
              r"absolutely|still|also|just|even|more|most|too|probably|definitely|feeling|a\s+lot\s+more))*")
_ATTRIBUTION = (
    r"(?:\byou(?:'re|\s+are|\s+were|'ve\s+been|\s+have\s+been|'d\s+be|'ll\s+be|"
    r"\s+(?:must|might|may|could|would|will|should)\s+(?:be|feel|have\s+been|have\s+felt)|"
    r"\s+(?:\w+ly\s+)?(?:feel|felt|seem|seemed|sound|sounded|look|looked|get|got)(?:\s+(?:like|to\s+be))?)"
    r"|\b(?:are|were)\s+you"
    r"|\bto\s+(?:feel|be\s+feeling)"
    r"|\b(?:okay|ok|normal|natural|understandable|fine|alright|all\s+right|valid)\s+to\s+be)"
)
_NEGATED = re.compile(r"\b(?:not|never|n't)\b|n't\s*$")
_WHAT_DO_YOU_THINK = re.compile(r"\bwhat\s+do\s+you\s+think\s+about\b")
_GENERIC_QUESTIONS = [
    _WHAT_DO_YOU_THINK,
    re.compile(r"\bwhat\s+do\s+you\s+think\s+of\s+(?:it|that|this)\b"),
    re.compile(r"\bhow\s+do\s+you\s+think\s+about\b"),  # the same question, garbled by the 1.5B model
    # (and in the past: "That's so sad to hear! How did you feel about it?" to a wedding speech; 1 of 45,990 ED turns)
    re.compile(r"\bhow\s+(?:do|did)\s+you\s+feel\s+about\s+(?:it|that|this|all\s+(?:of\s+)?(?:it|that|this))\s*\?"),
    re.compile(r"\bhow\s+(?:does|did)\s+(?:it|that|this)\s+make\s+you\s+feel\b"),
    re.compile(r"\b(?:can|could|would)\s+you\s+tell\s+me\s+(?:a\s+(?:little|bit)\s+)?more(?:\s+about\s+(?:it|that|this))?"
               r"\s*\?"),
    re.compile(r"\bdo\s+you\s+want\s+to\s+talk\s+about\s+(?:it|that|this)\s*\?"),
    # a help desk's close, not a listener's (0 of 45,990 ED listener turns; the 1.5B model: "Do you have any
    # other questions about life?", "... about your job or the workplace?", "Is there anything else you'd like
    # to know or talk about today?" to a eulogy to give)
    re.compile(r"\bdo\s+you\s+have\s+any\s+(?:other\s+|more\s+|further\s+)?questions?\b"),
    # ("Do you have any other concerns?" to a dog's failing kidneys, 2026-12-07; 0 of 45,990 ED listener turns)
    re.compile(r"\bany\s+(?:other|more|further)\s+concerns\b"),
    re.compile(r"\banything\s+else\s+(?:you'd|you\s+would|you)\s+(?:like|want)\s+to\s+(?:know|ask|talk\s+about|share|discuss)\b"),
    # the same close offered as help, and a form that asks for more of anything (0 of 45,990 ED listener turns
    # either; the 1.5B model: "Is there anything else I can help you with?", "Do you have any other details
    # you'd like to share about your dog?" to a dog that learned to sit)
    re.compile(r"\banything\s+else\s+(?:that\s+)?i\s+(?:can|could)\s+(?:help|do)\b"),
    re.compile(r"\bany\s+(?:other|more|further)\s+details\b|\b(?:anything|something)\s+(?:else\s+)?(?:you'd|you\s+would)\s+"
               r"like\s+to\s+share\b"),
    # turns the talk away from what they just told: a listener's question is about them
    re.compile(r"(?:^|[.!?]\s+)(?:and\s+)?(?:how|what)\s+about\s+you\s*\?"),
]


def normalize(text: str) -> str:
    """Lower case with straight apostrophes."""
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Lower-cased words (contractions kept whole: "i'm", "you're")."""
    return _WORD.findall(normalize(text))


def understanding_opening(reply: str) -> str | None:
    """The reply's "I understand / I see / I hear" opening (after an interjection), or None."""
    match = _UNDERSTAND.search(normalize(reply))
    return match.group(0).strip() if match else None


def opens_with_understanding(reply: str) -> bool:
    """Whether the reply opens with "I understand", "I see" or "I hear" (after an interjection)."""
    return understanding_opening(reply) is not None


@cache
def _label_pattern(label: str) -> re.Pattern[str]:
    return re.compile(rf"{_ATTRIBUTION}{_MODIFIERS}\s+{re.escape(label.lower())}\b")


def parrots_label(reply: str, label: str | None) -> bool:
    """Whether the reply names ``label`` as the person's feeling, not negated ("you must feel so proud")."""
    if not label:
        return False
    text = normalize(reply)
    for match in _label_pattern(label).finditer(text):
        if not _NEGATED.search(text[max(0, match.start() - 12):match.end()]):
            return True
    return False


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, split after ".", "!" or "?"."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


_DENIAL = r"\byou(?:'re\s+not|\s+are\s+not|\s+aren't|\s+were\s+not|\s+weren't|\s+(?:don't|do\s+not|didn't|did\s+not)\s+(?:feel|seem))"
_SINCE_CHANGED = re.compile(r"\b(?:anymore|any\s+more|no\s+longer)\b")


@cache
def _denial_pattern(label: str) -> re.Pattern[str]:
    return re.compile(rf"{_DENIAL}{_MODIFIERS}\s+{re.escape(label.lower())}\b")


def denies_label(reply: str, label: str | None) -> bool:
    """Whether a statement in the reply tells them they do not feel ``label`` ("I'm glad you're not
    feeling anxious"); a question ("You weren't excited?") or a change they told ("not afraid anymore")
    does not count."""
    if not label:
        return False
    for sentence in split_sentences(normalize(reply)):
        if sentence.endswith("?") or _SINCE_CHANGED.search(sentence):
            continue
        if _denial_pattern(label).search(sentence):
            return True
    return False


def names_a_label(reply: str, labels: Iterable[str] = tuple(e.value for e in EDEmotion)) -> bool:
    """Whether the reply names any of ``labels`` (default: the 32 ED emotions) as the person's feeling."""
    return any(parrots_label(reply, label) for label in labels)


def asks_what_do_you_think_about(reply: str) -> bool:
    """Whether the reply asks "what do you think about"."""
    return bool(_WHAT_DO_YOU_THINK.search(normalize(reply)))


def stock_question(reply: str) -> str | None:
    """The stock question the reply asks (one that fits any message, see the module docstring), or None."""
    text = normalize(reply)
    return next((match.group(0) for p in _GENERIC_QUESTIONS if (match := p.search(text))), None)


def asks_generic_question(reply: str) -> bool:
    """Whether the reply asks a stock question that fits any message."""
    return stock_question(reply) is not None
