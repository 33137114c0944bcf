"""Crisis screen: a fast, high-recall detector of risk disclosures in the user's words.

It errs on the side of flagging: a false alarm costs one careful reply, a miss can
cost far more. Patterns are plain regular expressions so the trace can show the
exact phrase that triggered the screen.
"""

from __future__ import annotations

import re

from empathygraph.schemas import RiskCategory, SafetyAssessment

_PATTERNS: dict[RiskCategory, list[str]] = {
    RiskCategory.SELF_HARM: [
        r"\bkill(?:ing)? my ?self\b",
        r"\bend(?:ing)? (?:my|it) (?:life|all)\b",
        r"\bend it all\b",
        r"\bsuicid\w*",
        r"\b(?:want|wanna|going|ready|plan(?:ning)?) to die\b",
        r"\bwish (?:i was|i were|i'd been) dead\b",
        r"\bwish i (?:could )?(?:just )?(?:die|disappear)\b",
        r"\b(?:don'?t|do not) want to (?:live|be alive|exist|wake up|be here)\b",
        r"\bno (?:reason|point) (?:to|in) (?:live|living|going on)\b",
        r"\bbetter off (?:dead|without me)\b",
        r"\b(?:hurt|harm|cut|cutting|burn|burning) (?:my ?self|myself)\b",
        r"\bself[- ]?harm\w*",
        r"\btake (?:all )?(?:my|the|these) pills\b",
        r"\bcan'?t go on (?:living|anymore|like this)\b",
        r"\bnot (?:be|being) (?:here|around) anymore\b",
        r"\bjump(?:ing)? off (?:a|the) (?:bridge|roof|building)\b",
        r"\btak(?:e|ing) my (?:own )?life\b",
        r"\bunalive (?:my ?self|me)\b",
        r"\bkms\b",
        r"\bhang(?:ing)? my ?self\b",
        r"\bslit(?:ting)? my wrists?\b",
        r"\b(?:no longer|never) want to (?:live|be alive|be here|wake up)\b",
        r"\bwhat'?s the point (?:of|in) (?:living|life|going on|being alive)\b",
        r"\b(?:don'?t|do not|can'?t|cannot) see (?:the|any) point (?:of|in) (?:living|life|going on)\b",
        r"\b(?:go to )?sleep and never wake up\b",
        r"\bwrote (?:a|my) (?:suicide|goodbye) (?:note|letter)\b",
    ],
    RiskCategory.ABUSE: [
        r"\b(?:he|she|they|my \w+) (?:hits|hit|beats|beat|kicks|kicked|chokes|choked|strangled|slapped|punched) me\b",
        r"\babus(?:e|ed|es|ing|ive)\b",
        r"\b(?:raped|rape|molested|sexually assaulted)\b",
        r"\bthreaten(?:s|ed)? to (?:kill|hurt) me\b",
        r"\bafraid (?:to go|of going) home\b",
        r"\bforced me to\b",
        r"\bnot safe at home\b",
    ],
    RiskCategory.MEDICAL_EMERGENCY: [
        r"\bchest pains?\b",
        r"\b(?:can'?t|cannot|can not) breathe?\b",
        r"\boverdos\w*",
        r"\btook too many (?:pills|tablets)\b",
        r"\bheart attack\b",
        r"\bhaving a stroke\b",
        r"\b(?:bleeding|bleeds) (?:heavily|a lot|badly|won'?t stop)\b",
        r"\b(?:passed out|unconscious|seizure|fainted)\b",
        r"\bswallowed (?:bleach|poison)\b",
    ],
}
_COMPILED = {cat: [re.compile(p, re.IGNORECASE) for p in pats] for cat, pats in _PATTERNS.items()}
# A self-harm disclosure outranks the others: it gets the most specific protocol.
_PRIORITY = [RiskCategory.SELF_HARM, RiskCategory.MEDICAL_EMERGENCY, RiskCategory.ABUSE]


def screen(text: str) -> SafetyAssessment:
    """Screen text for disclosures of self-harm, abuse or a medical emergency."""
    normalized = text.replace("’", "'")
    hits: dict[RiskCategory, list[str]] = {}
    for category, patterns in _COMPILED.items():
        found = [m.group(0) for p in patterns for m in p.finditer(normalized)]
        if found:
            hits[category] = found
    for category in _PRIORITY:
        if category in hits:
            score = min(1.0, 0.6 + 0.2 * len(hits[category]))
            matched = [phrase for cat in _PRIORITY for phrase in hits.get(cat, [])]
            return SafetyAssessment(category=category, matched=matched, score=score)
    return SafetyAssessment()
