"""Messages that only greet, thank or say goodbye ("hello", "thanks so much!", "bye for now").

Nothing happened in them to analyse, and asked to analyse one anyway the 1.5B model took the
system prompt's example messages for the person's own ("talking about their grandmother's recipe
cards", then "What's happening with Milo?"). Such a message is read by rule (no LLM call) and the
reply is asked to answer the pleasantry, and nothing else.
"""

from __future__ import annotations

import re
from typing import Literal

from empathygraph.phrasing import normalize
from empathygraph.schemas import EMOTION_VALENCE_AROUSAL, CoarseEmotion, EDEmotion, EmotionAnalysis

Pleasantry = Literal["greeting", "thanks", "farewell"]

_ADDRESS = r"(?:\s+(?:there|again|everyone|friend|buddy|listener))?"
_PARTS: dict[Pleasantry, str] = {
    "greeting": r"(?:hi|hello|hey|hiya|howdy|yo|greetings|good\s+(?:morning|afternoon|evening)|"
                r"how\s+are\s+you(?:\s+doing)?(?:\s+today)?|how'?s\s+it\s+going|what'?s\s+up|how\s+are\s+things|"
                r"nice\s+to\s+meet\s+you)" + _ADDRESS,
    "thanks": r"(?:thanks?(?:\s+(?:you|so\s+much|a\s+lot|again))*|thank\s+you(?:\s+(?:so|very)\s+much|\s+again)?|cheers|"
              r"that\s+helps?|that\s+helped)" + _ADDRESS,
    "farewell": r"(?:bye(?:\s+for\s+now)?|goodbye|good\s*night|see\s+you(?:\s+(?:later|soon|tomorrow))?|"
                r"talk\s+(?:to\s+you\s+)?(?:later|soon|tomorrow)|take\s+care|gotta\s+go|i\s+have\s+to\s+go)" + _ADDRESS,
}
_FILLER = r"(?:ok(?:ay)?|alright|right|well|oh|cool|great)"  # goes with a pleasantry ("ok thanks"), is none alone
_ANY_PART = "|".join([*_PARTS.values(), _FILLER])
_ONLY_PLEASANTRIES = re.compile(rf"^\W*(?:(?:{_ANY_PART})(?:\W+|$))+$")

# How each is read: what the face and voice follow, and what the reply is asked to do.
_READING: dict[Pleasantry, tuple[EDEmotion, CoarseEmotion, str]] = {
    "greeting": (EDEmotion.CONTENT, CoarseEmotion.NEUTRAL, "They greeted you."),
    "thanks": (EDEmotion.GRATEFUL, CoarseEmotion.JOY, "They thanked you."),
    "farewell": (EDEmotion.CONTENT, CoarseEmotion.NEUTRAL, "They said goodbye."),
}
REPLY_HINT: dict[Pleasantry, str] = {
    "greeting": "They only greeted you: greet them back warmly in a few words and ask how they are or what is on "
                "their mind. Mention nothing else. ",
    "thanks": "They only thanked you: say you are glad to be there for them, in a few words. Mention nothing else. ",
    "farewell": "They are saying goodbye: wish them well in a few words. Mention nothing else. ",
}


def pleasantry(words: str) -> Pleasantry | None:
    """What the message is when it is nothing but greetings, thanks or goodbyes (the last kind said wins:
    "thanks, bye" is a farewell); None for anything else."""
    text = normalize(words)
    if not _ONLY_PLEASANTRIES.match(text):
        return None
    said = [(match.start(), kind) for kind, part in _PARTS.items() for match in re.finditer(rf"\b(?:{part})\b", text)]
    return max(said)[1] if said else None


def pleasantry_analysis(kind: Pleasantry, words: str) -> EmotionAnalysis:
    """The analysis of a pleasantry, by rule: a mild feeling, the words themselves as the cause."""
    emotion, coarse, scenario = _READING[kind]
    valence, arousal = EMOTION_VALENCE_AROUSAL[emotion]
    return EmotionAnalysis(emotion=emotion, coarse=coarse, intensity=0.3, valence=valence, arousal=arousal,
                           event_scenario=scenario, causes=[words.strip()], label_source="small talk")
