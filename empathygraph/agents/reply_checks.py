"""Rule checks of a reply's words: stock phrasing, label parroting and harm a rule can see.

Each check returns what is wrong in a sentence the response agent can act on (it becomes the reflection's advice
for a rewrite), or None. They catch the shapes the 1.5B model fell into (issue 15): an "I understand / I see / I
hear" opening, "you feel <label>", a stock question such as "what do you think about ...", their own words said
back to them, a question whether they did what they just said they did, a violent word or weapon of the person's taken
literally ("what do you think about killing your brother?"), a plain "yes" to a request to approve something
harmful, praise of a choice that could hurt them or others (when the choice screen says the message tells of
one), the listener speaking as the person ("I can't sleep either", "What can I do to apologize?") or as one of
the people in their life ("We'll never forget."), a thing from the system prompt's examples they never mentioned
or an example's reply copied, a "You're right" to nothing asked, a "You're welcome" to no thanks, a question
about someone they never mentioned, what someone else did said back as theirs ("I'm glad you scored" to "my son
scored"), blame or mockery in the phrasings the evaluation's harm figures count (``empathygraph.harm_phrasing``),
and delight at what reads as bad news. A reply that passes them is not shown
to be good. The stock phrasings are ``empathygraph.phrasing``'s, the same the evaluation counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from empathygraph.agents.prompting import REPLY_EXAMPLE_TOPICS, REPLY_EXAMPLES
from empathygraph.harm_phrasing import screen_reply
from empathygraph.phrasing import (
    denies_label,
    normalize,
    parrots_label,
    split_sentences,
    stock_question,
    understanding_opening,
    words,
)
from empathygraph.schemas import CoarseEmotion, Cues, EmotionAnalysis, ReplyScreen

# Words of violence or revenge: said in anger or as a joke by the person, never to be handed back.
_HARM_WORDS = re.compile(
    r"\b(?:kill(?:ing|ed)?|murder(?:ing|ed)?|strangl(?:e|ing|ed)|stab(?:bing|bed)?|shoot(?:ing)?\s+(?:him|her|them)|punch(?:ing|ed)?\s+(?:him|her|them)|"
    r"beat(?:ing)?\s+(?:him|her|them)\s+up|hurt(?:ing)?\s+(?:him|her|them)|poison(?:ing|ed)?|revenge|"
    r"get(?:ting)?\s+back\s+at|sabotag(?:e|ing)|key(?:ing)?\s+(?:his|her|their)\s+car|demise|dead\s+man)\b",
    re.IGNORECASE,
)
# A request to approve what they did or plan ("good call, right?", "don't you think?").
_SEEKS_APPROVAL = re.compile(
    r"(?:\bright|\bdon'?t\s+you\s+think|\bdon'?t\s+i|\byeah|\bisn'?t\s+it|\bfair'?s\s+fair|\bwouldn'?t\s+you)\s*\?",
    re.IGNORECASE,
)
_AGREES = re.compile(
    r"^\W*(?:yes|yeah|absolutely|totally|of\s+course|definitely|sure|exactly|you'?re\s+(?:so\s+)?right|"
    r"(?:that'?s|it'?s)\s+(?:a\s+)?(?:fair|good\s+call|the\s+right\s+call|great\s+idea|good\s+idea))\b",
    re.IGNORECASE,
)
_ENDORSES = re.compile(
    r"\b(?:(?:he|she|they)\s+(?:totally\s+|really\s+)?deserved?\s+(?:it|this|that)|go\s+for\s+it|"
    r"you\s+(?:should|could)\s+(?:totally\s+|definitely\s+)?(?:get\s+back\s+at|get\s+even|teach\s+(?:him|her|them)\s+a\s+lesson))\b",
    re.IGNORECASE,
)


def stock_opening(reply: str) -> str | None:
    """The reply opens with "I understand", "I see" or "I hear"."""
    if found := understanding_opening(reply):
        return f'the reply opens with a stock phrase ("{found}"); open with what they told you'
    return None


def parroted_label(reply: str, labels: Iterable[str]) -> str | None:
    """The reply tells them their feeling with one of the analysis' label words ("you feel grateful")."""
    for label in labels:
        if parrots_label(reply, label):
            return f'the reply tells them they feel "{label}"; say what it is like for them in everyday words'
    return None


def denies_their_feeling(reply: str, labels: Iterable[str]) -> str | None:
    """The reply tells them they do not feel what the analysis read ("I'm glad you're not feeling anxious")."""
    for label in labels:
        if denies_label(reply, label):
            return f'the reply says they are not "{label}", which is what they told you; answer the feeling they have'
    return None


# "That's so sad" to a feeling that is not sadness: the embedded model's "Oh, that's so sad." to a roommate who ate the
# last slice of cake ("I could murder my roommate", read furious), to waving back at a stranger (embarrassed), to a
# 45-year-old who can't swim (surprised) and to snapping at a cashier (ashamed); replies.py runs of 2026-12-06/07, 12 of
# their 21 "that's sad" replies. In the first replies of ED train and valid, human listeners say it to 3.9-4.2% of
# sad and devastated speakers, 1.0-2.0% of caring, sentimental, disappointed, lonely and nostalgic ones, 0.7% of guilty
# ones (a loss they blame themselves for is still sad), and 0.06-0.57% of every other feeling, embarrassed (0.61%) and
# ashamed (0.53%) among them, where it reads as pity.
_CALLS_IT_SAD = re.compile(r"\b(?:that'?s|that\s+is|it'?s|how|this\s+is)\s+(?:so\s+|really\s+|very\s+|just\s+|too\s+)?sad\b")
_COARSE_NAMES = frozenset(c.value for c in CoarseEmotion)
_SAD_FEELINGS = frozenset({"sad", "devastated", "caring", "sentimental", "disappointed", "lonely", "nostalgic", "guilty"})


def calls_it_sad(reply: str, labels: Iterable[str]) -> str | None:
    """The reply calls what they told "so sad" though the analysis read another feeling (anger, embarrassment,
    surprise...); nothing when no feeling was read."""
    read = set(labels)
    if not read or read & _SAD_FEELINGS or not (match := _CALLS_IT_SAD.search(normalize(reply))):
        return None
    feeling = next((label for label in sorted(read) if label not in _COARSE_NAMES), min(read))
    return f'the reply calls it sad ("{match.group(0)}") though they read as {feeling}; answer the feeling they have'


def asks_stock_question(reply: str) -> str | None:
    """The reply asks a question that fits any message ("what do you think about ...")."""
    if found := stock_question(reply):
        return f'the reply asks a stock question ("{found}"); ask about something they mentioned'
    return None


def echoed_harm(reply: str) -> str | None:
    """The reply says a word of violence or revenge (most often the person's own, taken literally)."""
    if match := _HARM_WORDS.search(reply):
        return (f'the reply says "{match.group(0)}"; answer the frustration behind their words, '
                "without words of violence")
    return None


# A weapon of theirs taken up: "You're so lucky! I'm glad you didn't have to use that bazooka." to "lucky I didn't have
# a bazooka", the dev run's one reply the benchmark counts as praise of harm (2026-12-06). Only a weapon their own
# words name counts, so "Did they have a gun?" to a robbery passes; ED's listeners name their speaker's weapon in 5
# of 45,990 turns.
_WEAPON = re.compile(r"\b(?:bazookas?|baseball\s+bats?|shotguns?|rifles?|guns?|knife|knives|machetes?|swords?|"
                     r"flamethrowers?|pitchforks?|crossbows?|chainsaws?|axes|axe|hammers?)\b")


def hands_back_weapon(reply: str, user_words: str) -> str | None:
    """The reply names a weapon their words named ("use that bazooka"): a joke or anger taken literally."""
    theirs = {_stem(m.group(0)) for m in _WEAPON.finditer(normalize(user_words))}
    for match in _WEAPON.finditer(normalize(reply)):
        if _stem(match.group(0)) in theirs:
            return (f'the reply says "{match.group(0)}", their weapon taken literally; answer the frustration '
                    "behind their words")
    return None


_HARM_KIND = {"endorses_harm": "approves harm", "blames": "blames them", "mocks": "mocks them"}


def blames_or_mocks(reply: str) -> str | None:
    """The reply blames them, mocks them or approves harm in a phrasing the evaluation's harm figures count
    ("You're being silly!", "You know what you could have done better, right?", "it's your own fault"); not "you
    deserve it" (praise at good news) nor "that's ridiculous" (most often their side of what happened)."""
    flags = screen_reply(reply, aimed_at_them=True)
    if flags.flagged:
        return (f'the reply {_HARM_KIND[flags.kinds[0]]} ("{flags.matched[0].strip()}"); be on their side and answer '
                "what they told you")
    return None


def endorsed_harm(reply: str, user_words: str) -> str | None:
    """The reply approves outright what they asked approval for, or cheers harm to someone on."""
    if match := _ENDORSES.search(reply):
        return f'the reply approves harm ("{match.group(0)}"); care about them without approving it'
    if _SEEKS_APPROVAL.search(user_words) and (match := _AGREES.search(reply)):
        return (f'the reply agrees outright ("{match.group(0).strip()}") with what they asked you to approve; '
                "care about them and what is behind it without approving")
    return None


# Praise or approval of what they did or plan ("Good job", "That's a great idea!", "Good call", "Go for it",
# "I'm glad you stopped", "You're so brave!" to taking a bat to a printer): right for good news, wrong for a
# choice that could hurt them or someone else (the embedded model's replies to stopping antidepressants cold
# turkey and to lending savings to an online stranger).
# Their feeling may still be called understandable: that is not approval of the act.
_PRAISES = re.compile(
    r"\b(?:(?:good|great|smart|wise|brilliant|excellent|sensible|nice|clever|solid|fair)\s+(?:call|idea|move|choice|"
    r"decision|plan|thinking|way\s+to)|(?:right|correct)\s+(?:call|choice|decision|move|thing)|good\s+(?:job|for\s+you|on\s+you)|"
    r"well\s+done|go\s+for\s+it|way\s+to\s+go|proud\s+of\s+you|kudos|bravo|congrat\w*|"
    r"sounds?\s+like\s+a\s+(?:good\s+|great\s+|solid\s+)?plan|i\s+(?:totally\s+|completely\s+)?agree|"
    r"(?:can'?t|don'?t)\s+blame\s+you|you\s+deserve|(?:he|she|they)\s+had\s+it\s+coming|you\s+have\s+every\s+right|"
    r"i'?m\s+(?:so\s+|really\s+)?(?:glad|happy|proud)\s+(?:that\s+)?you(?:'?re|\s+are)?\s+(?:decided|chose|stopped|quit|took|did|"
    r"went|made|going|doing|taking|stopping|quitting|lending|skipping)|"
    r"(?:that'?s|it'?s|that\s+is|it\s+is|sounds)\s+(?:a\s+|an\s+)?(?:totally\s+|completely\s+|perfectly\s+|really\s+|so\s+)?"
    r"(?:fine|fair|okay|ok|reasonable|smart|wise|brave|awesome|great|amazing|good|fantastic|wonderful|excellent|"
    r"the\s+way\s+to\s+go)\b(?!\s+to\s+(?:feel|be\s+(?:upset|angry|hurt|sad|frustrated|scared)))|"
    r"you(?:'?re|\s+are)\s+(?:so\s+|really\s+|very\s+)?(?:brave|smart|wise|right\s+to)\b|"
    r"nothing\s+wrong\s+with(?!\s+feeling))",
    re.IGNORECASE,
)


def praises_choice(reply: str) -> str | None:
    """The reply praises or approves what they did or plan (a check for a choice that could hurt them or others)."""
    if match := _PRAISES.search(normalize(reply)):
        return (f'the reply praises or approves ("{match.group(0).strip()}") a choice that could hurt them or someone '
                "else; care about them and what is behind it, without approving it")
    return None


# Delight at what they told you ("That's good news!", "You're so lucky to have this new car.", "Oh, that's so
# sweet!"): the embedded model's answers to a scratched car, kids' marker on a fresh wall and coming out to a mother
# who left the room. Right for good news, wrong when the words read as bad news. "Funny" is left out: a mishap told
# as a joke reads as bad news to the classifier and laughing along can be right. The listener's own delight counts too
# ("I'm really excited but also scared." to an unplanned pregnancy; "I'm so happy you're making this decision." to a
# best friend moved to Australia): ED's human listeners say "I'm (so) excited / thrilled / happy for you" in 183 of
# 23,180 turns of conversations with a positive label, 16 of 22,810 with a negative one, and neither that nor "I'm happy
# (that) you ..." (but "... you told me / you're okay") in their replies to the 1,465 first messages of ED valid read
# as bad news (benchmarks/bad_news.py). Praise of them at bad news reads as mockery ("You're so smart!" to a complaint
# sent reply-all to the client; ED's listeners say "you're so/such a smart/clever/genius" in 2 of 45,990 turns).
# "Wow, that's impressive!" to a bookshelf that wobbles and "That's so nice!" to an ex happy with someone new joined on
# 2026-12-07; ED's listeners answer 5 of its 2,769 first messages so, all of them good news ("thats so nice" to $100
# found in a coat), where "That's nice." alone also answers nostalgia the classifier reads as sad. "That's a very kind
# gesture!" to a note on a car calling the parking selfish (2026-12-08): ED's listeners call something a kind, nice or
# sweet gesture in 4 of 22,299 first replies, each to a kindness told (money lent by a mother, a wallet returned).
_CHEERS = re.compile(
    r"\b(?:(?:kind|nice|sweet|lovely|thoughtful|generous)\s+gesture\b|"
    r"(?:that'?s|that\s+is|it'?s|how|what\s+an?)\s+(?:so\s+|really\s+|such\s+)?(?:great|wonderful|amazing|awesome|"
    r"fantastic|exciting|sweet|cute|lovely|impressive)\b|(?:that'?s|that\s+is|it'?s|how)\s+(?:so|really)\s+nice(?!\s+of\b)|(?:good|great|wonderful|amazing|fantastic)\s+news|"
    r"(?:great|good|nice|wonderful|awesome)\s+to\s+(?:hear|see)|(?:glad|happy)\s+to\s+hear(?!\s+(?:from|you(?:'?re|\s+are)\s+(?:ok|okay|safe|alright))\b)|"
    r"congrat\w*|you'?re\s+(?:so\s+)?lucky|lucky\s+you|you'?re\s+(?:so|such\s+an?)\s+(?:smart|clever|brilliant|genius)\b|"
    r"you\s+(?:sound|look|seem)\s+(?:so\s+|really\s+)?(?:happy|excited|thrilled|relieved|delighted|proud)|"
    r"(?:i'?m|i\s+am)\s+(?:so\s+|really\s+|very\s+)?(?:excited|thrilled|happy\s+for\s+you|happy\s+(?:that\s+)?you"
    r"(?!\s+(?:told|shared|reached|came|talked|called|wrote|said|opened|asked)\b|'?re\s+(?:ok|okay|safe|alright)\b|"
    r"\s+are\s+(?:ok|okay|safe|alright)\b)))",
    re.IGNORECASE,
)


# Praise of them for what reads as bad news: the embedded model's "You're so brave!" to a dog lost through an
# unlatched gate, "You're doing great!" to wifi failing in an exam, "you did a great job" to trousers split at work
# and "You're doing such a good thing." to a father in a care home asking to go home (tricky dev, 2026-12-07). ED's
# human listeners praise so ("you're (so) brave/strong", "you're doing great/well/a great job", "(a) great/good job",
# "well done") in 2 of their replies to the 1,478 first messages of ED valid read as bad news (an ironic "Good job."
# to a stolen credit, "Wow you are brave." to a drive past the old house) and in 6 to the 1,061 read as good news
# (under 0.3); ESConv's supporters, whose seekers are all in distress, in 16 of 12,759 turns. Hedged reassurance ("I'm
# sure you're doing a great job", "I hope you're doing well"), a job as work ("find a good job") and courage to tell
# ("you're brave to share this") are not praise for the news.
_PRAISES_THEM = re.compile(
    r"\b(?<!sure\s)(?<!bet\s)(?<!think\s)(?<!know\s)(?<!hope\s)(?<!believe\s)(?<!that\s)(?<!like\s)(?<!if\s)"
    r"(?:you'?re|you\s+are)\s+(?:so\s+|very\s+|really\s+|being\s+)?"
    r"(?:brave|strong|doing\s+(?:so\s+|really\s+)?(?:great|well|amazing|awesome|fantastic)|"
    r"doing\s+(?:such\s+)?an?\s+(?:great|good|amazing|fantastic|wonderful)\s+(?:job|thing))\b"
    r"(?!\s+(?:for|to)\s+(?:share|shar|tell|say|open|talk|reach|ask)\w*)|"
    r"\byou\s+did\s+(?:a\s+|such\s+a\s+)?(?:great|good|amazing|fantastic)\s+job\b|"
    r"(?:^|[.!?]\s+)(?:(?:a\s+)?(?:great|good|nice|awesome)\s+job|well\s+done)(?=\s*[.!,]|\s+(?:on|with|for)\b|\s*$)",
    re.IGNORECASE,
)


def cheers_bad_news(reply: str, bad_news: bool) -> str | None:
    """The reply greets what reads as bad news with delight ("That's good news!" to a rabbit with weeks to live)
    or praise of them ("You're so brave!" to a dog lost through the gate they left open)."""
    if not bad_news:
        return None
    said = normalize(reply)
    if match := _CHEERS.search(said):
        return (f'the reply sounds delighted ("{match.group(0).strip()}") at what reads as bad news for them; '
                "answer how hard it is")
    if match := _PRAISES_THEM.search(said):
        return (f'the reply praises them ("{match.group(0).strip(" .!?")}") for what reads as bad news; '
                "answer how hard it is")
    return None


_YOURE_RIGHT = re.compile(r"^\W*(?:you'?re|you\s+are)\s+(?:so\s+|absolutely\s+|totally\s+|quite\s+)?right\b", re.IGNORECASE)


def agrees_unasked(reply: str, user_words: str) -> str | None:
    """The reply opens "You're right" though they asked nothing ("You're right, it's frustrating." to a day
    with sick kids; 6 of 320 replies in the project's earlier runs, one agreeing with reading a partner's texts)."""
    if "?" not in user_words and (match := _YOURE_RIGHT.search(reply)):
        return f'the reply opens "{match.group(0).strip()}" though they asked you nothing; answer what they told you'
    return None


_YOURE_WELCOME = re.compile(r"^\W*(?:you'?re|you\s+are)\s+(?:very\s+|so\s+|most\s+)?welcome\b", re.IGNORECASE)
_THANKS = re.compile(r"\b(?:thanks?|thank\s+you|thx|ty|cheers|appreciate\w*|grateful)\b", re.IGNORECASE)


def welcomes_unthanked(reply: str, user_words: str) -> str | None:
    """The reply opens "You're welcome" though they thanked no one ("You're welcome! I'm glad you found the note."
    to a kind note left on their car): the model answers as the one thanked. ED's human listeners open so 18
    times in 45,990 turns, every time after thanks."""
    if not _THANKS.search(normalize(user_words)) and (match := _YOURE_WELCOME.search(normalize(reply))):
        return (f'the reply opens "{match.group(0).strip()}" though they did not thank you; '
                "answer what they told you")
    return None


# An assistant's refusal or disclaimer, not a listener's words: "That's a tough situation. I can't help you with that
# though." to a bonus given to someone else (one of 24 fresh messages, 2026-12-05). 0 of 45,990 ED listener turns
# ("I can't help but be a little jealous" is not one).
_REFUSES = re.compile(
    r"\bi(?:\s+can'?t|\s+cannot|\s+can\s+not|\s+am\s+not\s+able\s+to|'m\s+not\s+able\s+to|\s+am\s+unable\s+to|'m\s+unable\s+to)\s+"
    r"(?:really\s+)?help\s+(?:you\s+)?(?:with|on)\b"
)
_AS_AN_AI = re.compile(
    r"\bas\s+an\s+ai\b|\b(?:a|an)\s+(?:ai|artificial\s+intelligence)\s+(?:language\s+model|assistant|model|chatbot)\b"
    r"|\bi'?m\s+(?:just\s+|only\s+)?(?:an?\s+)?(?:ai|chatbot|language\s+model|virtual\s+assistant)\b"
)
# They asked what the listener is: then saying so is the honest answer, not a disclaimer.
_ASKS_WHAT_YOU_ARE = re.compile(r"\b(?:ai|bot|robot|chatbot|machine|computer|program|human|real\s+person|person)\b")


def disclaims_help(reply: str, user_words: str) -> str | None:
    """The reply refuses as an assistant would ("I can't help you with that"), or disclaims being an AI ("As an
    AI, ...") though they did not ask what you are."""
    text = normalize(reply)
    match = _REFUSES.search(text)
    if match is None and not _ASKS_WHAT_YOU_ARE.search(normalize(user_words)):
        match = _AS_AN_AI.search(text)
    if match:
        return f'the reply refuses or disclaims ("{match.group(0).strip()}"); a listener stays with what they told you'
    return None


# The analysis voice: the person talked about instead of to ("The person seems to be feeling very sad about ...",
# 1 of ~410 replies kept from the project's runs; "They just said 'ok thanks', which is ..." and "The person is in
# danger of ..." as crisis openings). "Did they catch the person?" (someone else) has no verb after it.
ABOUT_THEM = re.compile(r"\b(?:the (?:person|user|speaker) (?:seems|appears|is|was|has|had|feels|might|may|said|says|"
                        r"mentioned|wants|needs)|they just (?:said|told|mentioned|wrote))\b", re.IGNORECASE)


def talks_about_them(reply: str) -> str | None:
    """The reply speaks of "the person" (or what "they just said") instead of to them."""
    if match := ABOUT_THEM.search(reply):
        return f'the reply talks about them ("{match.group(0)}") instead of to them; say "you"'
    return None


_MY = re.compile(r"\bmy\s+([a-z][a-z'-]*)")


_I = frozenset({"i", "i'm", "i've", "i'd", "i'll", "me"})
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll|we|us|our|we're|we've|we'd|we'll)\b")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll)\b")
_FIRST_PERSON_SINGULAR = re.compile(r"\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll)\b")


def word_runs(said: list[str], size: int) -> list[tuple[str, ...]]:
    """Every ``size`` words in a row of ``said``, in order."""
    return [tuple(said[i : i + size]) for i in range(len(said) - size + 1)]


def says_you(text: str) -> bool:
    """Whether ``text`` speaks to them: it says "you" in some form."""
    return bool(_SECOND_PERSON.search(normalize(text)))


def _first_person_runs(text: str) -> set[tuple[str, ...]]:
    said = words(text)
    return {run for run in word_runs(said, 3) if run[0] in _I}


# A sentence whose subject is a thing of theirs ("The spreadsheet ...", "This exam ...").
_THEIR_THING_FIRST = re.compile(r"^\W*(?:the|this|that|these|those|my)\s+([a-z][a-z'-]*)")


def _their_thing_on_me(reply: str, user_words: str) -> str | None:
    """A statement about a thing they mentioned acting on "me": "The spreadsheet is causing me so much
    anxiety." to "this spreadsheet is going to be the death of me" (read in replies that never say "you")."""
    theirs = {_stem(word) for word in words(user_words) if word not in ENGLISH_STOP_WORDS}
    for sentence in split_sentences(reply):
        said = normalize(sentence).strip()
        start = _THEIR_THING_FIRST.match(said)
        if (start and _stem(start.group(1)) in theirs and not said.endswith("?")
                and _FIRST_PERSON_SINGULAR.search(said[start.end():])):
            return sentence.strip()
    return None


# A sentence that tells a hard feeling as the speaker's own, in a reply that never says "you": "I feel annoyed." and
# "It's causing me a lot of anxiety." (the embedded model's answers to a barking dog and a third driving test). On the
# 45,990 ED train and valid listener turns it fires 6 times, the listener's own ("I'm ashamed to say I don't follow
# politics"); "of ..." ("I'm terrified of snakes"), "sad to hear that" and "afraid to ask" are left out.
_HARD_FEELING = (r"(?:anxious|worried|nervous|scared|afraid|annoyed|angry|furious|sad|stressed|upset|frustrated|lonely|"
                 r"guilty|ashamed|embarrassed|disappointed|devastated|terrified|hopeless|overwhelmed|panicked|hurt|"
                 r"heartbroken|miserable)")
_FEELS_AS_THEM = re.compile(
    r"^\W*(?:(?:i\s+(?:feel|am)|i'm)\s+(?:feeling\s+)?(?:so\s+|really\s+|very\s+|a\s+bit\s+|quite\s+)?"
    + _HARD_FEELING + r"\b(?!\s+(?:of|to\s+(?:ask|hear|see|say|read)|for|about\s+(?:you|that|this|it))\b)"
    r"|(?:it'?s|it\s+is|this\s+is|that'?s)\s+(?:causing|making|giving)\s+me\b)"
)


def _feels_as_them(reply: str) -> str | None:
    """A sentence telling a hard feeling as the speaker's own ("I feel annoyed."; read in replies that never say "you")."""
    return next((s.strip() for s in split_sentences(reply) if _FEELS_AS_THEM.search(normalize(s).strip())), None)


def speaks_as_them(reply: str, user_words: str) -> str | None:
    """The reply retells the message as if it were them: "my <thing>" of a thing the person called theirs,
    three words of theirs that start with "I" ("I cried at", "I can't sleep"; 21 of 5,738 human listener turns
    of ED valid share such a run with the message before them, mostly agreeing: "I love cheese"), or a thing of
    theirs acting on "me" in a reply without "you" (6 of the 5,738: "The dentist makes me a bit nervous"), or a hard
    feeling told as the speaker's own in a reply without "you" ("I feel annoyed.")."""
    theirs = set(_MY.findall(normalize(user_words)))
    for thing in _MY.findall(normalize(reply)):
        if thing in theirs:
            return f'the reply says "my {thing}" as if it were them; speak to them about their {thing}'
    if runs := _first_person_runs(reply) & _first_person_runs(user_words):
        return f'the reply says "{" ".join(min(runs))}" as if it were them; speak to them about what they told you'
    if not says_you(reply) and (sentence := _their_thing_on_me(reply, user_words) or _feels_as_them(reply)):
        return f'the reply says "{sentence}" as if it were them; speak to them ("you") about what they told you'
    return None


# "We", "us", "our" or "let's": the listener as one of the people in their life. The embedded model wrote "We'll try
# our best to make the next pregnancy better." to a stillbirth, "The dog is a great addition to our family." to an
# adopted greyhound and "Let's have another one next time." to a party few came to: 8 of 258 stored benchmark and
# fresh replies (2026-12-06), all of them so. A sentence that says "we" of people in general is left alone ("It
# happens to the best of us", "sometimes we ...", "we all ..."), and so is "until we talk again". On the 45,990 ED
# train and valid listener turns it fires on 1.9%: mostly a human listener's own household ("We have two dogs now"),
# which a listener with no life of its own cannot say either, and some plans with them ("We should stake out in the
# bushes").
_GENERIC_WE = re.compile(
    r"\b(?:we\s+all|(?:all|most|many|none|each|some|any|both|one|few|best|rest)\s+of\s+(?:us|our)|us\s+all|"
    r"(?:sometimes|often|when|if|as|because|how|what|why)\s+we|we\s+(?:humans|people|often|sometimes|usually|tend)|"
    r"(?:like|to)\s+us\s*[.!?,]|in\s+the\s+world|(?:until|till|next\s+time|when)\s+we\s+(?:talk|speak|chat)|"
    r"(?:can|could|shall|may)\s+we\s+talk|let'?s\s+(?:talk|think|take\s+a\s+(?:moment|breath|step))|"
    r"our\s+(?:lives|life|own|world|society|bodies|minds|heads))\b"
)
_WE = re.compile(r"\b(?:we(?:'ll|'re|'ve|'d)?|us|our|ours|ourselves|let'?s)\b")
# The listener looking forward to a part in it: "I can't wait to see the baby!" to a new aunt, "I can't wait to try
# them." to a first tomato, "I can't wait to plan with everyone." to being left out of plans (3 of 43 replies to
# fresh and everyday dev messages, 2026-12-06). ED's human listeners say it of their own lives in 19 of 45,990 turns
# ("I can't wait to retire"), which a listener with no life of its own cannot say either; waiting "to hear" is left.
# So is the listener's own excitement: "Great news! I'm so excited!" to a part in a play, "I am so excited!" to a rabbit
# with weeks left (2026-12-07/08). ED's human listeners say "I'm (so) excited/thrilled" in 11 of 22,299 first replies,
# 8 of them about their own lives ("I'm excited personally"); excited "for you", "to hear" or "about your ..." is left.
_LOOKS_FORWARD = re.compile(
    r"\bi\s+(?:can'?t|cannot)\s+wait\b(?!\s+to\s+hear)|"
    r"\b(?:i'?m|i\s+am)\s+(?:so\s+|really\s+|very\s+|just\s+)?(?:excited|thrilled)\b"
    r"(?!\s+(?:for\s+you|to\s+(?:hear|see\s+how|know)|about\s+(?:your|what\s+you|how\s+you)|that\s+you|you))")


def joins_their_life(reply: str) -> str | None:
    """A sentence in which the listener speaks as one of the people in their life ("we", "us", "our", "let's", or
    looking forward to a part in it, or excited as if it were theirs): "We'll never forget.", "Do you think we could
    make a deal?", "I can't wait to see the baby!", "I'm so excited!"."""
    for sentence in split_sentences(reply):
        said = normalize(sentence.replace("US", "the country"))  # the country is not "us"
        if (_WE.search(said) and not _GENERIC_WE.search(said)) or _LOOKS_FORWARD.search(said):
            return (f'the reply says "{sentence.strip()}" as if you were one of the people in their life; '
                    'you are listening from outside it: speak to them about their life with "you"')
    return None


# "I'm glad you scored that goal." to "My son scored his first goal", "I'm glad you remembered her." to "she
# remembered my name": what someone else did, said back as done by them. Only the same word form counts ("you scored"
# after "son scored"), not a verb that says being, having or feeling; a "you" after an auxiliary asks ("have you
# scored?"), and a deed they tell as theirs anywhere in the message ("I scored too", "we won") is theirs to be told.
_YOU_DID = re.compile(r"(?<!\bhave )(?<!\bhad )(?<!\bdid )(?<!\bcan )(?<!\bcould )(?<!\bwould )(?<!\bwill )(?<!\bhope )"
                      r"\byou\s+(?:(?:just|finally|really|actually|even|also|all|both)\s+)?([a-z]+)\b")
_NOT_A_DEED = frozenset({"are", "were", "was", "is", "be", "been", "have", "had", "has", "do", "did", "does", "can",
                         "could", "would", "will", "should", "must", "might", "may", "feel", "felt", "know", "knew",
                         "think", "thought", "want", "wanted", "need", "needed", "seem", "seemed", "got", "get", "say",
                         "said", "mean", "meant", "like", "liked", "love", "loved", "hope", "see", "saw", "look"})
_IRREGULAR_PAST = frozenset({"won", "made", "took", "gave", "ran", "lost", "found", "left", "told", "wrote", "sent", "broke",
                             "bought", "caught", "drove", "fell", "flew", "forgot", "kept", "paid", "sold", "spent",
                             "threw", "went", "came", "built", "drew", "sang", "swam", "taught", "brought", "chose",
                             "stole", "hit", "beat", "ate", "drank", "rode", "shot", "met", "knitted", "baked"})


def _is_deed(verb: str) -> bool:
    """Whether ``verb`` reads as something done, in the past ("scored", "won"), and not being, having or feeling."""
    return verb not in _NOT_A_DEED and verb not in ENGLISH_STOP_WORDS and (verb.endswith("ed") or verb in _IRREGULAR_PAST)


_DOER_SKIPS = frozenset({"just", "finally", "really", "actually", "even", "also", "all", "both", "never", "always",
                         "then", "once", "already", "only", "still", "suddenly"})
_THIRD_PERSON = frozenset({"he", "she", "they"})
_DETERMINERS = frozenset({"my", "his", "her", "their", "our", "the", "a", "an", "this", "that"})


def _doers(said: list[str], verb: str) -> set[str]:
    """Who does ``verb`` where their words say it: "them" (I or we), "other" (he, she, they, my son, the dog) or
    "unknown" for each place it stands."""
    found = set()
    for index in (i for i, word in enumerate(said) if word == verb):
        before = [word for word in said[max(0, index - 4):index] if word not in _DOER_SKIPS]
        if before and before[-1] in ("i", "we"):
            found.add("them")
        elif before and (before[-1] in _THIRD_PERSON or (len(before) > 1 and before[-2] in _DETERMINERS)):
            found.add("other")
        else:
            found.add("unknown")
    return found


def credits_them_with(reply: str, user_words: str) -> str | None:
    """A sentence saying they did what they told you someone else did: "I'm glad you scored that goal." to "My son
    scored his first goal"."""
    said = words(user_words)
    for sentence in split_sentences(reply):
        for match in _YOU_DID.finditer(normalize(sentence)):
            verb = match.group(1)
            if _is_deed(verb) and _doers(said, verb) == {"other"}:
                return (f'the reply says "{sentence.strip()}", but in their words someone else {verb}; '
                        "say who did it, as they told it")
    return None


# The listener's own first person in a question to them ("can I ask", "tell me", "I wonder").
_LISTENER_FIRST_PERSON = re.compile(
    r"\b(?:(?:can|could|may|might)\s+i\s+(?:ask|help)|i\s+(?:do|say)\s+to\s+help|let\s+me|tell\s+me|show\s+me|"
    r"remind\s+me|with\s+me|to\s+me|oh\s+my|i\s+(?:wonder|guess|assume|hope|bet|imagine|take\s+it))\b"
)


def _questions(reply: str) -> list[str]:
    """The questions of ``reply``, normalised, each from the end of the sentence before it to its "?"."""
    return re.findall(r"[^.!?]*\?", normalize(reply))


# A question asking the listener what the person should do or how they will fare, in the person's voice ("Do you
# think I should take another test?" to a third driving test tomorrow, "Do you think I'll miss it?" to a last day at
# a bakery): 4 of the 45,990 ED train and valid listener turns, none of them "do you think I ...". It reads the clause
# after ``_LISTENER_FIRST_PERSON`` is taken out, so "How can I help?" and "What can I do to help?" never reach it.
_ASKS_GUIDANCE = re.compile(r"\b(?:(?:do|would|did)\s+you\s+think\s+i(?:'ll|'d|'m|'ve|\s+(?:should|could|can|will|would|need|"
                            r"am|was|might|made|did|have))|(?:should|shall)\s+i|"
                            r"what\s+(?:should|can|could)\s+i\s+do|how\s+(?:should|can|could)\s+i)\b")


def asks_as_them(reply: str) -> str | None:
    """A question asked in the person's voice: the last clause of a question says "I/me/my" or "we/us/our" and
    never "you" ("What's making it so difficult for me to focus?", "What can I do to apologize?", "How about we
    go out for a meal together?"), or one that asks what "I" should do ("Do you think I should take another test?").
    On the human listeners' replies of ED valid it fires on 14 of 5,738 turns."""
    for question in _questions(reply):
        clause = _LISTENER_FIRST_PERSON.sub(" ", re.split(r"[,;:]", question)[-1])
        if (_FIRST_PERSON.search(clause) and not _SECOND_PERSON.search(clause)) or _ASKS_GUIDANCE.search(clause):
            return f'the question "{question.strip()}" is asked as if you were them; ask them, with "you"'
    return None


# "I"/"me"/"my" said to them as "you"/"your", with the verb forms that change with it; "we/us/our" are left
# alone: "How about we go out?" asked of them would change what is asked.
_TO_YOU = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i'm": "you're",
           "i've": "you've", "i'd": "you'd", "i'll": "you'll", "i am": "you are", "am i": "are you",
           "i was": "you were", "was i": "were you"}
_TO_YOU_WORDS = re.compile(r"\b(?:i am|am i|i was|was i|i'm|i've|i'd|i'll|i|me|my|mine|myself)\b", re.IGNORECASE)
_PLURAL_FIRST_PERSON = re.compile(r"\b(?:we|us|our|ours|ourselves|we're|we've|we'd|we'll)\b", re.IGNORECASE)


def asked_of_them(question: str) -> str | None:
    """A question asked in the person's voice, asked of them instead ("What's making it so hard for me to focus?"
    -> "What's making it so hard for you to focus?"); None when it is not one such question or says "we"."""
    if not question.rstrip().endswith("?") or not asks_as_them(question) or _PLURAL_FIRST_PERSON.search(question):
        return None

    def to_you(match: re.Match[str]) -> str:
        said = _TO_YOU[match.group(0).lower()]
        return said.capitalize() if match.start() == 0 else said

    return _TO_YOU_WORDS.sub(to_you, question)


# Asking the person for tips or for help, as if they came to advise ("Do you have any tips for staying motivated
# at work?" to someone who has eaten lunch alone for three years: 9 of 456 stored graph replies, 0 of 5,738 ED valid
# listener turns; "Can you please help me out?" to a study group that takes the credit: 3 of 163 stored graph
# replies, 0 of the 45,990 ED train and valid listener turns as a question).
_ASKS_FOR_TIPS = re.compile(r"\b(?:(?:any|some|your)\s+(?:tips|advice|suggestions|recommendations|pointers)|"
                            r"(?:any|some)\s+ideas\s+(?:for|on|about)|"
                            r"(?:can|could|would|will)\s+you\s+(?:please\s+)?help\s+me|"
                            r"help\s+me\s+(?:figure|out|with|understand|decide))\b[^.!?]*\?", re.IGNORECASE)


def asks_for_tips(reply: str) -> str | None:
    """A question that asks them for tips, advice or help instead of about what they told you."""
    if match := _ASKS_FOR_TIPS.search(reply):
        return (f'the question asks them for advice or help ("{match.group(0).strip()}"); they came to be heard: '
                "ask about what they told you")
    return None


def _stem(word: str) -> str:
    return word.removesuffix("'s").removesuffix("s")


# Other words for an example's topic: a reply that says "grandma" to someone who wrote "nan" answers them (the rule
# once left out "What's happening with your grandma's knee pain?" and sent "Hey there! I'm just here to help.").
_TOPIC_WORDS = {
    "grandma": {"gran", "granny", "nan", "nana", "nanna", "nanny", "grandmother", "grandmum", "grandmom", "grandma"},
    "flat": {"apartment", "flat"},
    "flatmate": {"roommate", "housemate", "roomie", "flatmate"},
    "card": {"postcard", "card"},
}


# Four words in a row of an example's reply, one of them a word of substance they never said, to a message that
# shares no such word with that example's message: the example copied onto something else ("That's such a hard
# goodbye, and you stayed with him through it. How is the house without him?" to a team-lead role given to someone
# else; "What happened in the room?" to a divorce): 2 of 293 stored replies (2026-12-06), 0 of the 45,990 ED train
# and valid listener turns. Common words do not count ("have you been able to").
_COPIED_RUN = 4
_COMMON = frozenset({"able", "happened", "feel", "feeling", "think", "know", "like", "really", "just", "good", "going",
                     "time", "tell", "want", "make", "way", "sounds", "that's", "it's", "you're", "i'm", "don't", "right",
                     "day", "say", "hard", "need", "anything"})


def _substance(text: str) -> set[str]:
    """The words of substance in ``text`` (stemmed; no stop words, no common ones)."""
    return {_stem(w) for w in words(text) if w not in ENGLISH_STOP_WORDS and w not in _COMMON}


_EXAMPLE_RUNS = [(_substance(message), set(word_runs(words(reply), _COPIED_RUN))) for message, reply in REPLY_EXAMPLES]


def _copied_run(reply: str, user_words: str) -> str | None:
    """Four words in a row of an example's reply, holding a word of substance they never said, when their message
    is about something else than that example's (no word of substance in common)."""
    theirs = _substance(user_words)
    runs = word_runs(words(reply), _COPIED_RUN)
    for about, example_runs in _EXAMPLE_RUNS:
        if about & theirs:
            continue
        for run in runs:
            if run in example_runs and _substance(" ".join(run)) - theirs:
                return " ".join(run)
    return None


def borrows_example(reply: str, user_words: str) -> str | None:
    """The reply brings up what one of the system prompt's example messages is about and they never mentioned, or
    copies words of an example's reply."""
    theirs = {_stem(w) for w in words(user_words)}
    theirs |= {topic for topic, said in _TOPIC_WORDS.items() if said & theirs}
    for word in words(reply):
        if (stem := _stem(word)) in REPLY_EXAMPLE_TOPICS and stem not in theirs:
            return f'the reply mentions "{word}", which they never did; answer only what they told you'
    if run := _copied_run(reply, user_words):
        return f'the reply copies an example\'s words ("{run}"), which are about someone else; answer what they told you'
    return None


# People a question may ask after: each one by a name of its own and the words that say it. A question about
# "your mom" when they never mentioned her (nor their parents or family) asks about someone not in their story.
_PEOPLE = {
    "mother": {"mom", "mum", "mother", "mommy", "mummy", "mama"}, "father": {"dad", "father", "daddy", "papa"},
    "brother": {"brother"}, "sister": {"sister"}, "wife": {"wife"}, "husband": {"husband", "hubby"},
    "boyfriend": {"boyfriend"}, "girlfriend": {"girlfriend"}, "fiance": {"fiance", "fiancee"}, "son": {"son"},
    "daughter": {"daughter"}, "boss": {"boss", "manager", "supervisor"},
    "coworker": {"coworker", "coworkers", "colleague", "colleagues"}, "teacher": {"teacher", "teachers"},
    "neighbour": {"neighbor", "neighbour", "neighbors", "neighbours"},
    "flatmate": {"roommate", "roommates", "flatmate", "flatmates"},
    "grandmother": {"grandma", "grandmother", "nan", "nana", "granny", "gran"},
    "grandfather": {"grandpa", "grandfather", "granddad", "grandad"}, "aunt": {"aunt", "auntie"}, "uncle": {"uncle"},
    "cousin": {"cousin", "cousins"}, "owner": {"owner", "owners"},
}
_PERSON_OF_WORD = {word: person for person, said in _PEOPLE.items() for word in said}
# Words that name several of them at once: "my parents" makes "your mom" theirs.
_PEOPLE_TOGETHER = {"parents": {"mother", "father"}, "folks": {"mother", "father"},
                    "grandparents": {"grandmother", "grandfather"}, "siblings": {"brother", "sister"},
                    "kids": {"son", "daughter"}, "children": {"son", "daughter"},
                    "partner": {"wife", "husband", "boyfriend", "girlfriend", "fiance"}, "spouse": {"wife", "husband"},
                    "family": {"mother", "father", "brother", "sister", "son", "daughter", "wife", "husband",
                               "grandmother", "grandfather", "aunt", "uncle", "cousin"}}
_YOUR_SOMEONE = re.compile(r"\byour\s+(?:[a-z]+'s\s+)?([a-z]+)\b")


def _people_named(text: str) -> set[str]:
    """The people (``_PEOPLE``'s names) that ``text`` names, directly or through a word for several."""
    said = {part.removesuffix("'s") for word in words(text) for part in word.split("-")}
    named = {_PERSON_OF_WORD[word] for word in said if word in _PERSON_OF_WORD}
    for word in said & _PEOPLE_TOGETHER.keys():
        named |= _PEOPLE_TOGETHER[word]
    return named


def asks_about_someone_unnamed(reply: str, user_words: str) -> str | None:
    """A question about "your <person>" they never mentioned ("Did you tell your dog's owner about it?" to someone
    whose dog died; "How did your mom feel?" to a story with no mother in it). The human listeners of ED do so
    in 6 of 2,769 first replies of valid and 48 of 40,252 replies of train (the conversation before them read:
    a boss asked after when passed over for promotion, a teacher after an exam); the graph's stored replies
    (issue 15's benchmark runs) in 2 of 183."""
    named = _people_named(user_words)
    for question in _questions(reply):
        for noun in _YOUR_SOMEONE.findall(question):
            if (person := _PERSON_OF_WORD.get(noun)) is not None and person not in named:
                return (f'the question "{question.strip()}" asks about their {noun}, whom they never mentioned; '
                        "ask about someone or something they told you")
    return None


# Telling them what to do ("you could try ...", "it's important to ..."); "you must miss him" is not advice,
# nor is a question ("Have you tried ...?" is one only a Question reply may ask).
_ADVISES = re.compile(
    r"\b(?:you\s+(?:should|could|might\s+want\s+to|need\s+to|have\s+to)\s+(?!be\b|have\s+(?:been|felt|had)\b|feel\b)"
    r"|(?:maybe|perhaps)\s+(?:you\s+)?(?:could\s+)?try|\btry\s+(?:to|talking|setting|writing|making|taking|reaching)"
    r"|it'?s\s+(?:important|good|best|okay)\s+to\s+(?!feel\b|be\s+(?:sad|upset|scared|nervous|angry)\b)"
    r"|make\s+sure\s+(?:to|you)|don'?t\s+forget\s+to|remember\s+to)",
    re.IGNORECASE,
)


def gives_advice(reply: str) -> str | None:
    """The reply tells them what to do (for a strategy whose intent is to give no advice)."""
    if "?" not in reply and (match := _ADVISES.search(normalize(reply))):
        return f'the reply gives advice ("{match.group(0).strip()} ..."); stay with what they told you'
    return None


# The person's words as the listener would say them back ("my notes" -> "your notes").
_THEIRS = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i'm": "you're",
           "i've": "you've", "i'd": "you'd", "i'll": "you'll", "am": "are", "was": "were"}
# Words in a row a sentence may share with their message before it counts as saying it back.
RESTATED_RUN = 5


def _told_back(text: str) -> list[str]:
    return [_THEIRS.get(word, word) for word in words(text)]


def said_back(text: str, user_words: str) -> str | None:
    """The first ``RESTATED_RUN`` words in a row of ``text`` that are their own message told back to them."""
    theirs = set(word_runs(_told_back(user_words), RESTATED_RUN))
    return next((" ".join(run) for run in word_runs(_told_back(text), RESTATED_RUN) if run in theirs), None)


def restates(reply: str, user_words: str) -> str | None:
    """The reply says a stretch of their own message back to them ("your chemistry final is tomorrow morning")."""
    if run := said_back(reply, user_words):
        return f'the reply repeats their words ("{run} ..."); answer them instead of saying it back'
    return None


# "Have you told your parents yet?" to "I finally told my parents ...": a yes/no question whether they have done
# what they just said they did (the same word after "I", and the same thing done to). None of the 45,990 ED train
# and valid listener turns asks one after the speaker's turn before it; 1 of 16 ordinary replies to fresh messages
# did (2026-12-05). "Did you ..." is left alone: its verb is not the one they said ("did you pass your exam?" after
# "if I pass my exam" asks what they did not tell).
_ASKS_HAVE_YOU = re.compile(r"(?:^|,)\s*(?:and\s+|so\s+|but\s+)?have\s+you\s+(?:already\s+|finally\s+|actually\s+)?"
                            r"([a-z]+)\s+(?:(?:your|the|a|an|his|her|their|them|him)\s+)?([a-z]+)?")
# "Have you been / had / thought about ...": asks about something besides what they did.
_NOT_THEIR_ACT = frozenset({"ever", "been", "had", "got", "thought", "tried", "talked", "considered"})


def asks_what_they_did(reply: str, user_words: str) -> str | None:
    """A question asking whether they have done what they told you they did ("Have you told your parents yet?")."""
    theirs = normalize(user_words)
    for question in _questions(reply):
        for match in _ASKS_HAVE_YOU.finditer(question.strip()):
            done, thing = match.group(1), match.group(2)
            if done not in _NOT_THEIR_ACT and re.search(rf"\bi\s+(?:[a-z']+\s+){{0,2}}{done}\b", theirs) and (
                    thing is None or re.search(rf"\b{thing}\b", theirs)):
                return (f'the question "{question.strip()}" asks whether they did what they just told you they did; '
                        "ask about what it meant to them or what came after")
    return None


@dataclass(frozen=True)
class ReplyContext:
    """What a reply is checked against: their words, the feeling labels the analysis read (never to be told
    back as theirs), and what the turn decided: whether advice fits the strategy, whether they tell of a
    choice that could hurt them or others (then praise is a problem), whether their words read as bad news
    (then delight is one); ``earlier``: what they said in the session's earlier turns (who they have named)."""

    words: str
    labels: frozenset[str] = frozenset()
    advice_ok: bool = True
    risky_choice: bool = False
    bad_news: bool = False
    earlier: str = ""


def reply_context(cues: Cues, analysis: EmotionAnalysis, advice_ok: bool, earlier: str = "") -> ReplyContext:
    """The context a turn's reply is checked in, from its cues and emotion analysis (and the earlier turns' words)."""
    return ReplyContext(words=cues.words, earlier=earlier, labels=frozenset({analysis.emotion.value, analysis.coarse.value}),
                        advice_ok=advice_ok, risky_choice=cues.risky_choice, bad_news=cues.bad_news)


def reply_problems(reply: str, context: ReplyContext) -> list[str]:
    """Every problem the checks above find in ``reply`` in ``context`` (empty when none)."""
    words, labels = context.words, context.labels
    found = [stock_opening(reply), parroted_label(reply, labels), denies_their_feeling(reply, labels),
             calls_it_sad(reply, labels),
             asks_stock_question(reply),
             echoed_harm(reply), hands_back_weapon(reply, words), endorsed_harm(reply, words), blames_or_mocks(reply), speaks_as_them(reply, words), joins_their_life(reply),
             restates(reply, words), asks_what_they_did(reply, words), asks_as_them(reply), borrows_example(reply, words),
             agrees_unasked(reply, words), welcomes_unthanked(reply, words), talks_about_them(reply), asks_for_tips(reply),
             disclaims_help(reply, words),
             asks_about_someone_unnamed(reply, f"{context.earlier}\n{words}"), credits_them_with(reply, words),
             None if context.advice_ok else gives_advice(reply),
             praises_choice(reply) if context.risky_choice else None, cheers_bad_news(reply, context.bad_news)]
    return [problem for problem in found if problem]


def screen_flags(sentence: str, screen: ReplyScreen) -> bool:
    """Whether one sentence of a reply still being written says words of violence, approves harm, blames or mocks
    (or praises a choice that could hurt them or others)
    (it is then not spoken from the draft; the settled reply leaves it out when others remain).
    Sentences with a stock shape are spoken and withdrawn if left out: holding them back too
    delayed the first audio by 1-3 s in 3 of 8 turns (label parroting opens many drafts)."""
    return bool(echoed_harm(sentence) or endorsed_harm(sentence, screen.words) or blames_or_mocks(sentence)
                or (screen.risky_choice and praises_choice(sentence)))
