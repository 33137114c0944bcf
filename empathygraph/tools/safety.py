"""Crisis phrase screen: exact, explainable patterns for risk disclosures in the user's words.

One of the risk assessment's signals (``tools/risk.py`` combines it with a trained
classifier and, where it helps, the LLM's own reading). Patterns are plain regular
expressions grouped by how risk is usually said — a wish to die, a plan, a means at
hand, a place, a farewell, being a burden, hurting oneself, ongoing abuse, symptoms of
an emergency, urges to hurt someone — so the trace can show the exact phrase that
fired and why. A pattern inside a clause that tells of the past ("three years ago I
used to cut") does not fire unless the clause also says it is happening again, nor does a self-harm
phrase right after a denial ("not suicidal", "no thoughts of self-harm"), nor "suicide" or "overdose" in
a death reported ("died of an overdose").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from empathygraph.schemas import RiskCategory, SafetyAssessment

_ME = r"(?:my ?self|myself)"
_PILLS = r"(?:pills|tablets|meds|medication|medicine|painkillers|sleeping pills|antidepressants|insulin)"
_PARTNER = (r"(?:he|she|they|my (?:husband|wife|partner|boyfriend|girlfriend|bf|gf|ex|dad|father|mom|mother|mum|"
            r"stepdad|stepfather|stepmom|stepmother|brother|sister|uncle|son|daughter|boss|coach|carer|caregiver))")

# An intrusive thought of harming someone: a picture, thought or urge, a way of harming and a person within a few
# words ("pictures in my head of dropping my baby", "urges to squeeze the babies"). On the safety set's train split
# it matched 19 of the 28 such disclosures and nothing harmless; 0 of 84,165 ED train turns.
_INTRUSION = r"(?:picture|pictures|picturing|imagine|imagining|thoughts|(?:a|the|this|that) thought|urges?|flashes|images|visions)"
_HARMING = (r"(?:shak(?:e|ing)|push(?:ing)?|drop(?:ping)?|hurt(?:ing)?|harm(?:ing)?|stab(?:bing)?|smother(?:ing)?|"
            r"drown(?:ing)?|squeez(?:e|ing)|strangl(?:e|ing)|throw(?:ing)?|kill(?:ing)?|hit(?:ting)?|let(?:ting)? go of|"
            r"(?:a |the |my )?(?:pillow|hand) over)")
_SOMEONE = (r"(?:him|her|them|people|strangers|someone|somebody|babies|kids|children|"
            r"(?:my|the|his|our|a) (?:little |small |newborn |elderly |\w+'s )?(?:baby|babies|son|daughter|boy|girl|"
            r"kids?|child|children|toddler|newborn|wife|husband|partner|girlfriend|boyfriend|mum|mom|dad|mother|father|"
            r"brother|sister|cousin|nan|gran|grandma|grandad|neighbou?r|flatmate|roommate|colleague|coworker|boss|"
            r"students?|pupils?|patients?|friend))")

# category -> kind -> patterns. The kind names how the risk was said; the trace shows it.
_PATTERNS: dict[RiskCategory, dict[str, list[str]]] = {
    RiskCategory.SELF_HARM: {
        "direct_statement": [
            rf"\bkill(?:ing)? {_ME}\b",
            r"\bsuicid\w*",
            r"\bend(?:ing)? (?:my|it) (?:life|all)\b",
            r"\bend it all\b",
            r"\btak(?:e|ing) my (?:own )?life\b",
            r"\bunalive (?:my ?self|me)\b",
            r"\bkms\b",
            rf"\bhang(?:ing)? {_ME}\b",
            r"\bslit(?:ting)? my wrists?\b",
        ],
        "wish_to_die": [
            # "I want to die of embarrassment" is the hyperbole people use every day
            (r"\b(?:want|wanna|going|ready|plan(?:ning)?|deserve) to die\b"
            r"(?! (?:of|from) (?:embarrassment|shame|boredom|cringe|laughter|laughing)\b| laughing\b)"),
            r"\bwish (?:i was|i were|i'd been) dead\b",
            r"\bwish i (?:could )?(?:just )?(?:die|disappear forever|stop existing)\b",
            r"\bwish i (?:had never been|was never|wasn'?t ever) born\b",
            r"\b(?:don'?t|do not|no longer|never) want to (?:live|be alive|exist|wake up|be here|go on)\b",
            r"\bno (?:reason|point) (?:to|in) (?:live|living|going on|being alive|being here)\b",
            r"\bwhat'?s the point (?:of|in) (?:living|life|going on|being alive)\b",
            r"\b(?:don'?t|do not|can'?t|cannot) see (?:the|any) point (?:of|in) (?:living|life|going on)\b",
            # a stated length ("... not wake up for about a week") means they expect to wake
            (r"\b(?:go to )?sleep and (?:never|not) wake up\b"
            r"(?! (?:for|until) (?:about |like |at least |a good |another )?(?:a|an|one|two|three|\d+|the next) "
            r"(?:week|day|hour|month|year|weekend)s?\b| until (?:monday|tomorrow|noon|lunch|spring|summer|it'?s over)\b)"),
            r"\bcan'?t go on (?:living|anymore|like this)\b",
            r"\bnot (?:be|being) (?:here|around|alive) (?:anymore|much longer|for much longer|by (?:tomorrow|morning))\b",
            r"\bdisappear (?:for good|forever|permanently)\b",
            r"\b(?:make|want|need) (?:it|the pain|everything|all of this) (?:to )?(?:stop|end) (?:for good|forever|permanently)\b",
        ],
        "burden": [
            r"\bbetter off (?:dead|without me|if i (?:was|were|wasn'?t|weren'?t) (?:gone|dead|here|around|alive))\b",
            r"\b(?:i'?m|i am) (?:just |such |only )?a (?:burden|waste of space)\b",
            r"\b(?:no ?one|nobody) would (?:even )?(?:care|notice|miss me) if i (?:died|was gone|were gone|disappeared)\b",
        ],
        "farewell": [
            r"\bwrote (?:a|my) (?:suicide|goodbye) (?:note|letter)\b",
            r"\b(?:suicide|goodbye) (?:note|letter)s?\b",
            r"\b(?:when|after|once) i'?m gone\b",
            r"\bby the time (?:you|anyone|someone) (?:read|reads|see|sees|find|finds) (?:this|me)\b",
            r"\b(?:this|it) (?:is|will be) my last (?:message|night|day|post)\b",
            r"\bwon'?t (?:be (?:here|around)|have to deal with me) (?:much longer|for long|tomorrow|anymore)\b",
            r"\bgiv(?:e|ing) away (?:my|all my) (?:things|stuff|belongings)\b",
        ],
        "plan_or_means": [
            rf"\b(?:stockpil|sav|hoard|collect)(?:e|ed|ing) (?:up )?(?:my |the |all my )?{_PILLS}\b",
            rf"\b(?:take|swallow) (?:all|every one) of (?:them|my {_PILLS}|the {_PILLS}|these)\b",
            rf"\btake (?:all )?(?:my|the|these) {_PILLS}\b",
            rf"\b(?:lined|laid|counted) (?:up|out) (?:the |my |all the )?{_PILLS}\b",
            r"\b(?:bought|got|have|tied|found) (?:a |the )?(?:rope|noose)\b",
            r"\bgun (?:to|against) my head\b",
            r"\bjump(?:ing)? (?:off|from) (?:a|the|this|my) (?:bridge|roof|building|balcony|cliff|ledge|overpass)\b",
            r"\b(?:step|walk|jump)(?:ing)? in front of (?:a|the) (?:train|bus|truck|car)\b",
            r"\b(?:standing|sitting) on (?:the |a )?(?:edge|ledge|railing)\b",
            r"\b(?:on|at) the (?:edge of the )?(?:bridge|ledge|roof|tracks|cliff) (?:right )?now\b",
            r"\b(?:made|have|got) a plan to\b",
            r"\b(?:researching|looked up|googl(?:ed|ing)|searching) (?:how|ways) to (?:die|end it|not wake up)\b",
        ],
        "self_injury": [
            rf"\b(?:hurt|harm|cut|cutting|burn|burning|burned|burnt|scratch|scratching|hit|hitting|punish|punishing) {_ME}\b",
            r"\bself[- ]?harm\w*",
            r"\b(?:cut|cutting|burn|burning|carve|carving) (?:into )?my (?:arms?|wrists?|legs?|thighs?|skin|stomach)\b",
            r"\b(?:razor|blade)s? (?:to|on|across) my\b",
        ],
        "eating_disorder": [
            rf"\bstarv(?:e|ing) {_ME}\b",
            r"\bmake myself (?:throw up|sick|vomit|puke)\b",
            r"\bpurg(?:e|ed|ing)\b",
            r"\bhaven'?t (?:eaten|had anything to eat) (?:in|for) (?:days|a week|\w+ days)\b",
        ],
    },
    RiskCategory.ABUSE: {
        "violence": [
            (rf"\b{_PARTNER} (?:hits|hit|beats|beat|kicks|kicked|chokes|choked|strangles|strangled|slaps|slapped|"
            r"punches|punched|shoves|shoved|hurts|burns|burned) me\b"),
            r"\babus(?:e|ed|es|ing|ive|er)\b",
            r"\b(?:raped|rape|molested|molests|sexually assaulted|groped)\b",
            r"\bbeat(?:s|en)? me up\b",
        ],
        "threat": [
            r"\bthreaten(?:s|ed|ing)? (?:to )?(?:kill|hurt|beat|take) me\b",
            r"\bthreaten(?:s|ed|ing)? to (?:kill|hurt) (?:me|my|the kids|the children)\b",
            r"\bsaid (?:he|she|they)(?:'d| would| will|'ll) kill me\b",
        ],
        "unsafe_home": [
            r"\b(?:afraid|scared|terrified) (?:to go|of going) home\b",
            r"\bnot safe (?:at home|in my (?:own )?(?:home|house))\b",
            r"\bforced me to\b",
            r"\b(?:locks|locked) me (?:in|inside|up)\b",
            r"\bwon'?t let me (?:leave|go out|see anyone|see my friends|have my phone|eat)\b",
            r"\bcomes? into my (?:room|bed) at night\b",
            r"\b(?:touches|touched) me (?:when|at night|there|and i)\b",
            r"\b(?:stalking|stalks|stalked) me\b",
            r"\bfollow(?:s|ed|ing) me (?:home|everywhere)\b",
        ],
    },
    RiskCategory.MEDICAL_EMERGENCY: {
        "overdose_taken": [
            r"\boverdos\w*",
            (rf"\btook (?:too many|all (?:of )?(?:my |the )?{_PILLS}|(?:a|the) (?:whole|full|entire) (?:bottle|pack|box|strip)|"
            rf"(?:a handful|a bunch|the rest) of (?:my |the )?{_PILLS}|\d+ (?:of )?(?:my |the )?{_PILLS})"),
            # "I've taken the whole bottle": the same amounts after "taken" ("taken too many" is often days off)
            (rf"\b(?:have|'ve|has|had|just) taken (?:all (?:of )?(?:my |the )?{_PILLS}|(?:a|the) (?:whole|full|entire) "
             rf"(?:bottle|pack|box|strip)|(?:a handful|a bunch|the rest) of (?:my |the )?{_PILLS})"),
            r"\bswallowed (?:all|a handful|a bunch|the whole|the rest|\d+)\b",
            (r"\b(?:swallowed|drank|ate) (?:some |a )?(?:bleach|poison|antifreeze|detergent|battery|button battery|"
            r"laundry pod|rat poison|weed killer)\b"),
        ],
        "symptoms_now": [
            r"\bchest pains?\b",
            r"\b(?:can'?t|cannot|can not) breathe?\b",
            r"\b(?:isn'?t|is not|not|stopped) breathing\b",
            # Told as happening: "I think I'm having a heart attack", "is this a heart attack?", "he's just had a heart
            # attack". Not "nearly had a heart attack" (a fright), "had a heart attack in 2019" or "going to have a
            # heart attack before 20": every disclosure of the safety set says it the first way, no harmless one does.
            (r"\b(?:having (?:a |another )?|just had a |(?:is|could) (?:this|it) (?:be )?a |feels? like a |"
             r"(?:could|might|may) be (?:a )?)heart attack\b"),
            r"\bhaving a stroke\b",
            r"\b(?:face|mouth|smile) (?:is |has )?(?:drooping|droopy|numb|gone numb)\b",
            r"\bslurr(?:ed|ing) (?:my |his |her )?(?:words|speech)\b",
            r"\b(?:bleeding|bleeds) (?:heavily|a lot|badly|won'?t stop|through)\b",
            r"\b(?:won'?t|can'?t|doesn'?t|does not) stop bleeding\b",
            r"\b(?:passed out|unconscious|unresponsive|seizure|seizing|fainted|collapsed)\b",
            r"\b(?:can'?t|cannot|won'?t) wake (?:him|her|them|my \w+) up\b",
            r"\b(?:throat|tongue|lips) (?:is |are )?(?:swelling|closing|swollen)\b",
            r"\blips (?:are )?(?:turning )?blue\b",
            r"\b(?:coughing|throwing|vomiting) up blood\b",
        ],
    },
    RiskCategory.HARM_TO_OTHERS: {
        "intent_to_harm": [
            (r"\b(?:want|going|gonna|plan(?:ning)?|ready|about) to (?:kill|hurt|stab|shoot|strangle|poison|smother|attack) "
            r"(?:him|her|them|someone|somebody|people|everyone|my \w+)\b"),
            r"\b(?:bring|take|taking|bringing) (?:a|my|the|dad'?s) (?:gun|knife|rifle|weapon) to (?:school|work|class|the office)\b",
            r"\bmake (?:him|her|them|everyone) pay\b",
        ],
        "intrusive_harm_thoughts": [
            rf"\b{_INTRUSION}\b\W+(?:[\w']+\W+){{0,5}}?{_HARMING}\W+(?:[\w']+\W+){{0,2}}?{_SOMEONE}\b",
            (r"\b(?:thoughts|urges?|images|visions) (?:of|about) (?:hurting|harming|killing|drowning|smothering|shaking|stabbing) "
            r"(?:my |the |a |someone|somebody|him|her|them)"),
            (r"\b(?:scared|afraid|terrified|worried) (?:that )?i(?:'ll| will| might| could)? (?:hurt|harm|kill|shake|drown|smother) "
            r"(?:my |the |him|her|them|someone|somebody)"),
        ],
    },
}

# Clauses that tell of the past or of someone else's risk; a pattern inside one does not fire
# unless the clause also says the risk is present again.
_PAST = re.compile(r"\b(?:used to|years? ago|months ago|back then|back in|when i was (?:a |younger|\d+|in)|"
                   r"(?:clean|sober|free) (?:for|since)|in recovery|recovered|survived|got through)\b", re.IGNORECASE)
_PRESENT = re.compile(r"\b(?:again|now|tonight|today|lately|still|these days|this week|started|relapsed)\b", re.IGNORECASE)
# An anniversary of recovery is past even when it is today ("1 yr clean from self harm today", "three years since
# my overdose"), unless the message says it is coming back. Years and months only: "three days since I took them"
# can still be an emergency; a hundred days and more ("500 days since I last hurt myself") are an anniversary.
_ANNIVERSARY = re.compile(r"\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                          r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|several|a few|many)\s+"
                          r"(?:years?|yrs?|months?)\s+(?:(?:today|tomorrow|this \w+)\s+)?(?:since|clean|sober|free|ago today)\b"
                          r"|\b\d{3,}\s+days\s+(?:since|clean|sober|free)\b|\banniversary of\b",
                          re.IGNORECASE)
_COMING_BACK = re.compile(r"\b(?:again|relapsed|started|back|tonight|urges?|want to|going to|gonna|"
                          r"thinking (?:of|about))\b", re.IGNORECASE)
# A self-harm phrase right after a denial ("Not suicidal, just flat and tired.", "No thoughts of self-harm.", "He has
# no history of self-harm") says the danger is absent. Self-harm phrases only: "When I said no he shoved me" is abuse.
# Over the whole safety set this drops every phrase of 3 harmless messages and of no disclosure (one-off check).
_DENIED = re.compile(r"\b(?:not|no|without)\s+(?:(?:any|real|actual|active)\s+)?"
                     r"(?:(?:thoughts?|urges?|plans?|intentions?|ideas?|signs?|history|risk)\s+(?:of|about|to)\s+)?$",
                     re.IGNORECASE)
# A death reported ("My brother died of an overdose", "we lost him to suicide", "a student died by suicide"): grief
# or news, not the writer's danger (nobody writing has died). Only for the bare words "suicide" and "overdose", and
# not where the writer nearly died ("I almost died of an overdose last night").
_DIED_OF = re.compile(r"(?<!\bi )(?<!nearly )(?<!almost )(?<!have )(?<!could've )(?<!would've )"
                      r"\b(?:died|deaths?|committed|lost (?:\w+ ){1,3}to)\s+(?:by\s+|of\s+|from\s+)?(?:an?\s+)?$",
                      re.IGNORECASE)
_REPORTED_DEATH = re.compile(r"^(?:suicid|overdos)", re.IGNORECASE)
# Bereaved by suicide is itself a risk: a message that also tells of the writer's own thoughts, wishes or plans
# ("my dad died by suicide and now I think about it too") keeps the phrase.
_OWN_PULL = re.compile(r"\b(?:i|i'm|i've|i'd|me|myself)\b[^.!?]{0,40}\b(?:think|thinking|thought|thoughts|want|wanting|"
                       r"wish|urges?|plan|planning|tempted|considering|same)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"(?<=[.!?;\n])\s+|\s+(?:but|and then|though|although)\s+", re.IGNORECASE)

# Highest urgency first: the protocol speaks to these in this order.
PRIORITY = [RiskCategory.MEDICAL_EMERGENCY, RiskCategory.SELF_HARM, RiskCategory.HARM_TO_OTHERS, RiskCategory.ABUSE]


@dataclass(frozen=True)
class PatternHit:
    """One phrase that matched, and how risk was said there."""

    category: RiskCategory
    kind: str
    phrase: str


_COMPILED = [(category, kind, re.compile(pattern, re.IGNORECASE))
             for category, kinds in _PATTERNS.items() for kind, patterns in kinds.items() for pattern in patterns]


def normalize(text: str) -> str:
    """Straight apostrophes and single spaces, so one pattern covers the ways people type."""
    return re.sub(r"\s+", " ", text.replace("’", "'").replace("‘", "'"))


def _set_aside(category: RiskCategory, phrase: str, before: str, text: str) -> bool:
    """Whether a phrase that matched in ``text`` is denied ("not suicidal") or names a death reported ("died by
    suicide") in a message that tells nothing of the writer's own pull toward it."""
    denied = category is RiskCategory.SELF_HARM and bool(_DENIED.search(before))
    reported = bool(_REPORTED_DEATH.match(phrase)) and bool(_DIED_OF.search(before)) and not _OWN_PULL.search(text)
    return denied or reported


def find(text: str) -> list[PatternHit]:
    """Every risk phrase in ``text`` that is not told as past and done."""
    hits: list[PatternHit] = []
    coming_back = bool(_COMING_BACK.search(text))  # "... but the urges are back tonight" is another clause
    for clause in _CLAUSE.split(normalize(text)):
        told_as_past = ((bool(_PAST.search(clause)) and not _PRESENT.search(clause))
                        or (bool(_ANNIVERSARY.search(clause)) and not coming_back))
        if told_as_past:
            continue
        for category, kind, pattern in _COMPILED:
            hits += [PatternHit(category, kind, m.group(0)) for m in pattern.finditer(clause)
                     if not _set_aside(category, m.group(0), clause[: m.start()], text)]
    return hits


def screen(text: str) -> SafetyAssessment:
    """The patterns' own verdict: every category with a phrase, the most urgent first."""
    hits = find(text)
    categories = [c for c in PRIORITY if any(h.category is c for h in hits)]
    if not categories:
        return SafetyAssessment()
    score = min(1.0, 0.6 + 0.2 * len(hits))
    return SafetyAssessment(category=categories[0], categories=categories,
                            matched=[h.phrase for h in hits], score=score)
