"""Typed records every agent speaks, and the label sets of the field.

Label sets:
- ``EDEmotion``: the 32 EmpatheticDialogues emotions, mapped to ``CoarseEmotion``
  (the 6 basic emotions + neutral, the label set of FER2013 and MELD).
- ``Strategy``: the 8 ESConv support strategies.
- ``AvatarProfile``: the AvaMERG avatar profile (age, gender, timbre).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class EDEmotion(StrEnum):
    """The 32 emotions of EmpatheticDialogues."""

    AFRAID = "afraid"
    ANGRY = "angry"
    ANNOYED = "annoyed"
    ANTICIPATING = "anticipating"
    ANXIOUS = "anxious"
    APPREHENSIVE = "apprehensive"
    ASHAMED = "ashamed"
    CARING = "caring"
    CONFIDENT = "confident"
    CONTENT = "content"
    DEVASTATED = "devastated"
    DISAPPOINTED = "disappointed"
    DISGUSTED = "disgusted"
    EMBARRASSED = "embarrassed"
    EXCITED = "excited"
    FAITHFUL = "faithful"
    FURIOUS = "furious"
    GRATEFUL = "grateful"
    GUILTY = "guilty"
    HOPEFUL = "hopeful"
    IMPRESSED = "impressed"
    JEALOUS = "jealous"
    JOYFUL = "joyful"
    LONELY = "lonely"
    NOSTALGIC = "nostalgic"
    PREPARED = "prepared"
    PROUD = "proud"
    SAD = "sad"
    SENTIMENTAL = "sentimental"
    SURPRISED = "surprised"
    TERRIFIED = "terrified"
    TRUSTING = "trusting"


class CoarseEmotion(StrEnum):
    """Six basic emotions plus neutral (FER2013 / MELD label set)."""

    NEUTRAL = "neutral"
    JOY = "joy"
    SADNESS = "sadness"
    ANGER = "anger"
    FEAR = "fear"
    DISGUST = "disgust"
    SURPRISE = "surprise"


class Strategy(StrEnum):
    """The 8 ESConv emotional-support strategies."""

    QUESTION = "Question"
    RESTATEMENT = "Restatement or Paraphrasing"
    REFLECTION = "Reflection of feelings"
    SELF_DISCLOSURE = "Self-disclosure"
    AFFIRMATION = "Affirmation and Reassurance"
    SUGGESTIONS = "Providing Suggestions"
    INFORMATION = "Information"
    OTHERS = "Others"


class AgeGroup(StrEnum):
    CHILD = "child"
    YOUNG = "young"
    MIDDLE_AGED = "middle-aged"
    ELDERLY = "elderly"


class Gender(StrEnum):
    FEMALE = "female"
    MALE = "male"


class Timbre(StrEnum):
    HIGH = "high"
    MID = "mid"
    LOW = "low"


class Intensity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class RiskCategory(StrEnum):
    """What kind of danger a person discloses; one message can carry several."""

    NONE = "none"
    SELF_HARM = "self_harm"  # suicidal thoughts, plans or preparations; self-injury; starving or purging
    ABUSE = "abuse"  # harm from others: abuse, violence, threats, stalking, coercive control
    MEDICAL_EMERGENCY = "medical_emergency"  # symptoms now, an overdose or poison already taken
    HARM_TO_OTHERS = "harm_to_others"  # urges, intrusive thoughts or plans to hurt someone

    @classmethod
    def _missing_(cls, value: object) -> RiskCategory | None:
        return cls.ABUSE if value == "harm_from_others" else None


# Valence and arousal in [-1, 1] per ED emotion; a prior that voice cues refine.
# Values follow the NRC VAD lexicon ordering, rescaled, rounded to one decimal.
EMOTION_VALENCE_AROUSAL: dict[EDEmotion, tuple[float, float]] = {
    EDEmotion.AFRAID: (-0.7, 0.6),
    EDEmotion.ANGRY: (-0.7, 0.7),
    EDEmotion.ANNOYED: (-0.5, 0.4),
    EDEmotion.ANTICIPATING: (0.3, 0.5),
    EDEmotion.ANXIOUS: (-0.6, 0.6),
    EDEmotion.APPREHENSIVE: (-0.5, 0.4),
    EDEmotion.ASHAMED: (-0.7, 0.1),
    EDEmotion.CARING: (0.7, 0.1),
    EDEmotion.CONFIDENT: (0.7, 0.4),
    EDEmotion.CONTENT: (0.7, -0.3),
    EDEmotion.DEVASTATED: (-0.9, 0.3),
    EDEmotion.DISAPPOINTED: (-0.6, -0.1),
    EDEmotion.DISGUSTED: (-0.7, 0.4),
    EDEmotion.EMBARRASSED: (-0.5, 0.3),
    EDEmotion.EXCITED: (0.8, 0.8),
    EDEmotion.FAITHFUL: (0.6, -0.1),
    EDEmotion.FURIOUS: (-0.8, 0.9),
    EDEmotion.GRATEFUL: (0.8, 0.1),
    EDEmotion.GUILTY: (-0.6, 0.2),
    EDEmotion.HOPEFUL: (0.6, 0.3),
    EDEmotion.IMPRESSED: (0.6, 0.4),
    EDEmotion.JEALOUS: (-0.5, 0.5),
    EDEmotion.JOYFUL: (0.9, 0.6),
    EDEmotion.LONELY: (-0.7, -0.4),
    EDEmotion.NOSTALGIC: (0.1, -0.2),
    EDEmotion.PREPARED: (0.4, 0.2),
    EDEmotion.PROUD: (0.8, 0.5),
    EDEmotion.SAD: (-0.7, -0.3),
    EDEmotion.SENTIMENTAL: (0.2, -0.1),
    EDEmotion.SURPRISED: (0.2, 0.8),
    EDEmotion.TERRIFIED: (-0.8, 0.9),
    EDEmotion.TRUSTING: (0.6, -0.1),
}

ED_TO_COARSE: dict[EDEmotion, CoarseEmotion] = {
    EDEmotion.AFRAID: CoarseEmotion.FEAR,
    EDEmotion.ANGRY: CoarseEmotion.ANGER,
    EDEmotion.ANNOYED: CoarseEmotion.ANGER,
    EDEmotion.ANTICIPATING: CoarseEmotion.JOY,
    EDEmotion.ANXIOUS: CoarseEmotion.FEAR,
    EDEmotion.APPREHENSIVE: CoarseEmotion.FEAR,
    EDEmotion.ASHAMED: CoarseEmotion.SADNESS,
    EDEmotion.CARING: CoarseEmotion.JOY,
    EDEmotion.CONFIDENT: CoarseEmotion.JOY,
    EDEmotion.CONTENT: CoarseEmotion.JOY,
    EDEmotion.DEVASTATED: CoarseEmotion.SADNESS,
    EDEmotion.DISAPPOINTED: CoarseEmotion.SADNESS,
    EDEmotion.DISGUSTED: CoarseEmotion.DISGUST,
    EDEmotion.EMBARRASSED: CoarseEmotion.SADNESS,
    EDEmotion.EXCITED: CoarseEmotion.JOY,
    EDEmotion.FAITHFUL: CoarseEmotion.NEUTRAL,
    EDEmotion.FURIOUS: CoarseEmotion.ANGER,
    EDEmotion.GRATEFUL: CoarseEmotion.JOY,
    EDEmotion.GUILTY: CoarseEmotion.SADNESS,
    EDEmotion.HOPEFUL: CoarseEmotion.JOY,
    EDEmotion.IMPRESSED: CoarseEmotion.SURPRISE,
    EDEmotion.JEALOUS: CoarseEmotion.ANGER,
    EDEmotion.JOYFUL: CoarseEmotion.JOY,
    EDEmotion.LONELY: CoarseEmotion.SADNESS,
    EDEmotion.NOSTALGIC: CoarseEmotion.SADNESS,
    EDEmotion.PREPARED: CoarseEmotion.NEUTRAL,
    EDEmotion.PROUD: CoarseEmotion.JOY,
    EDEmotion.SAD: CoarseEmotion.SADNESS,
    EDEmotion.SENTIMENTAL: CoarseEmotion.SADNESS,
    EDEmotion.SURPRISED: CoarseEmotion.SURPRISE,
    EDEmotion.TERRIFIED: CoarseEmotion.FEAR,
    EDEmotion.TRUSTING: CoarseEmotion.NEUTRAL,
}

INTENSITY_VALUE: dict[Intensity, float] = {
    Intensity.LOW: 0.3,
    Intensity.MEDIUM: 0.6,
    Intensity.HIGH: 0.9,
}


class Record(BaseModel):
    """Base for all records: strict about unknown fields, plain JSON out."""

    model_config = ConfigDict(extra="forbid", use_enum_values=False)


Decisions = list[tuple[str, str]]


class StepOutput(Record):
    """A step's typed output, which says what it decided for people to read.

    ``decisions`` are (label, value) pairs for the trace views (by default its plain
    values); ``headline`` is the decision that names the step in the live view (by
    default none of its own: the views then show its first decision).
    """

    def decisions(self) -> Decisions:
        """What the step decided, as (label, value) pairs."""
        return [(key, value) for key, value in self.model_dump(mode="json").items() if isinstance(value, str | int | float)]

    def headline(self) -> str:
        """The decision that names the step; empty when its first decision does."""
        return ""


def top_labels(scores: list[LabelScore], n: int = 3) -> str:
    """A ranking's first labels with their scores, e.g. ``sad 0.61, lonely 0.20``."""
    return ", ".join(f"{s.label} {s.score:.2f}" for s in scores[:n])


class AvatarProfile(Record):
    """Who the listener avatar is; kept consistent across text, voice and face."""

    age: AgeGroup = AgeGroup.YOUNG
    gender: Gender = Gender.FEMALE
    timbre: Timbre = Timbre.MID


class LabelScore(Record):
    """One label of a classifier's ranking."""

    label: str
    score: float = Field(ge=0.0, le=1.0)


RiskSource = Literal["patterns", "classifier", "probe", "context", "llm", "session"]


class RiskSignal(Record):
    """One signal the risk assessment weighed: where it came from, its score, whether it fired."""

    source: RiskSource
    score: float = Field(ge=0.0, le=1.0, description="probability-like strength of the signal")
    threshold: float = Field(ge=0.0, le=1.0, description="at or above it the signal alone routes to the protocol")
    fired: bool
    categories: list[RiskCategory] = Field(default_factory=list)
    detail: str = Field(default="", description="the phrase, sentence or question behind the score")
    plain: bool = Field(default=True, description="read as plainly said: False for a score that fired below the level "
                        "where most disclosures of the dev set score (or the LLM tipping an unsure case)")


class SafetyAssessment(StepOutput):
    """What the risk assessment found in the user's words (and, with a session, in earlier turns)."""

    category: RiskCategory = Field(default=RiskCategory.NONE, description="the most urgent category found")
    categories: list[RiskCategory] = Field(default_factory=list, description="every category found, most urgent first")
    matched: list[str] = Field(default_factory=list, description="phrases that triggered it")
    score: float = Field(default=0.0, ge=0.0, le=1.0)
    signals: list[RiskSignal] = Field(default_factory=list, description="every signal weighed, fired or not")
    careful: bool = Field(default=False, description="the session disclosed risk earlier: stay careful")
    tentative: bool = Field(default=False, description="every signal that fired read the danger as unsure, not "
                            "plainly said: the protocol's words do not presume it (a false alarm is likeliest here)")

    @property
    def at_risk(self) -> bool:
        return self.category is not RiskCategory.NONE

    def decisions(self) -> Decisions:
        found: Decisions = [("risk", ", ".join(c.value for c in self.categories) if self.at_risk else "none found")]
        found += [(s.source, f"{s.score:.2f}{' fired' if s.fired else ''}{f' ({s.detail[:80]})' if s.detail else ''}")
                  for s in self.signals if s.score > 0 or s.fired]
        found += [("reading", "tentative: no signal read the danger as plainly said")] if self.tentative else []
        return found + ([("session", "careful: risk disclosed earlier")] if self.careful else [])

    def headline(self) -> str:
        return ", ".join(c.value for c in self.categories) if self.at_risk else "no risk found"


class PerceptionReport(StepOutput):
    """The fused reading of one user turn: what was said, how, with which face."""

    text: str = Field(description="what the person said: typed text and/or transcript")
    modalities: list[Literal["text", "audio", "image", "video"]]
    text_emotions: list[LabelScore] = Field(default_factory=list)
    voice: str | None = Field(default=None, description="how they sound, in words")
    face: str | None = Field(default=None, description="what their face shows, in words")
    conflicts: list[str] = Field(default_factory=list, description="cues that disagree")
    reading: str = Field(description="one or two sentences the later agents read")
    safety: SafetyAssessment = Field(default_factory=SafetyAssessment)
    skipped: list[str] = Field(default_factory=list, description="inputs not perceived, with why")

    def decisions(self) -> Decisions:
        found = [("reading", self.reading)]
        found += [(key, value) for key, value in (("voice", self.voice), ("face", self.face)) if value]
        if self.text_emotions:
            found.append(("text emotion", top_labels(self.text_emotions)))
        found += [("conflict", conflict) for conflict in self.conflicts]
        return found + risk_decisions(self.safety)


class EmotionAnalysis(StepOutput):
    """The user's emotion, how strong, and what caused it (quoted from their words)."""

    emotion: EDEmotion
    coarse: CoarseEmotion
    intensity: float = Field(ge=0.0, le=1.0)
    valence: float = Field(ge=-1.0, le=1.0)
    arousal: float = Field(ge=-1.0, le=1.0)
    event_scenario: str = Field(max_length=300)
    causes: list[str] = Field(description="spans quoted verbatim from the user's words")
    label_source: Literal["classifier", "llm", "fused", "fallback", "small talk"] = Field(
        description="what decided the label; fallback: the LLM's answer was unusable (classifier's top label, "
        "or a neutral placeholder without one); small talk: a greeting, thanks or goodbye, read by rule")

    def quoted_causes(self) -> str:
        return "; ".join(f'"{cause}"' for cause in self.causes)

    def decisions(self) -> Decisions:
        return [
            ("emotion", f"{self.emotion.value} ({self.coarse.value}, from {self.label_source})"),
            ("intensity", f"{self.intensity:.2f} · valence {self.valence:+.2f} · arousal {self.arousal:+.2f}"),
            ("scenario", self.event_scenario),
            ("cause", self.quoted_causes()),
        ]

    def headline(self) -> str:
        return f"{self.emotion.value} ({self.coarse.value}) · {self.quoted_causes()}"


class EmpathyPlan(StepOutput):
    """Chain-of-Empathy goal to response and the chosen ESConv strategy."""

    goal: str = Field(max_length=300)
    strategy: Strategy
    rationale: str = Field(max_length=300)

    def decisions(self) -> Decisions:
        return [("strategy", self.strategy.value), ("goal", self.goal), ("why", self.rationale)]

    def headline(self) -> str:
        return self.strategy.value


class SpeechStyle(Record):
    """How the reply should sound."""

    emotion: CoarseEmotion
    rate: float = Field(ge=0.5, le=1.5, description="speaking-rate multiplier")
    pitch: float = Field(ge=-6.0, le=6.0, description="pitch shift in semitones")
    energy: float = Field(ge=0.0, le=1.0)


class AvatarDirectives(Record):
    """How the avatar's face should move while it speaks."""

    expression: CoarseEmotion
    intensity: float = Field(ge=0.0, le=1.0)
    gaze: Literal["at_user", "down", "away"] = "at_user"
    head_motion: Literal["still", "nod", "tilt", "shake"] = "nod"


class ReplyScreen(Record):
    """What each sentence of a reply being written is checked against before it is spoken: the
    person's words (a request to approve something is read from them), and whether they tell of a
    choice that could hurt them or others (then no sentence praising it is spoken)."""

    words: str
    risky_choice: bool = False


class ReplyVoice(Record):
    """How the reply a step is about to write will sound: sent before its first word, so its
    sentences can be spoken while the rest is still being written (``screen``: a sentence in which
    the harm checks find words of violence or approval of harm is never spoken from the draft)."""

    speech: SpeechStyle
    profile: AvatarProfile
    screen: ReplyScreen | None = None


class ResponsePlan(StepOutput):
    """The reply and how to voice and show it: what goes to the generators."""

    text: str
    speech: SpeechStyle
    avatar: AvatarDirectives
    profile: AvatarProfile
    safety_protocol: bool = Field(default=False, description="reply follows the crisis protocol")
    resources: list[str] = Field(default_factory=list)

    def decisions(self) -> Decisions:
        speech, avatar = self.speech, self.avatar
        return [
            ("reply", self.text),
            ("voice", f"{speech.emotion.value}, rate {speech.rate:.2f}, pitch {speech.pitch:+.1f} st"),
            ("face", f"{avatar.expression.value} {avatar.intensity:.1f}, {avatar.head_motion}"),
        ]


class Critique(StepOutput):
    """The reflection agent's verdict on a response plan."""

    verdict: Literal["accept", "revise"]
    issues: list[str] = Field(default_factory=list)
    advice: str = ""
    source: Literal["checks", "llm", "checks+llm"] = "checks+llm"

    def decisions(self) -> Decisions:
        found = [("verdict", f"{self.verdict} (by {self.source})")]
        found += [("issue", issue) for issue in self.issues]
        return found + ([("advice", self.advice)] if self.advice else [])

    def headline(self) -> str:
        return self.verdict + (f": {'; '.join(self.issues)}" if self.issues else "")


# --- Perception cues: what the tools hand to the perception agent -----------------------


NEGATIVE_COARSE = frozenset({"sadness", "fear", "anger", "disgust"})
# The text classifier's negative mass at and above which a message reads as bad news (1,465 of ED valid's 2,769
# first messages; its human listeners greet 24 of those with delight, mostly nostalgia and misreads such as "My
# daughter killed the GRE!"). With the word reader blended in (2026-12-07): 1,478 and 23; 0.863 of the messages
# with a negative ED label and 0.118 of the others read so, against 0.858 and 0.114 (benchmarks/bad_news.py).
BAD_NEWS_MASS = 0.7


class TextEmotionCue(StepOutput):
    """A text classifier's ranking over the 32 ED emotions, and the coarse reading it sums to."""

    top: list[LabelScore]
    model: str
    coarse: list[LabelScore] = Field(
        default_factory=list,
        description="the 7 coarse emotions, each the summed probability of its fine labels, most likely first",
    )
    encoder_top: list[LabelScore] = Field(
        default_factory=list,
        description="the sentence encoder's own top 3 when the word reader or the LLM's emotion probe was blended "
        "into ``top`` (empty: ``top`` is the encoder's alone)",
    )

    def negative_mass(self) -> float:
        """The summed probability of sadness, fear, anger and disgust (0 without a coarse reading)."""
        return sum(score.score for score in self.coarse if score.label in NEGATIVE_COARSE)

    def decisions(self) -> Decisions:
        coarse = [("coarse emotion", top_labels(self.coarse, 2))] if self.coarse else []
        encoder = [("encoder alone", top_labels(self.encoder_top))] if self.encoder_top else []
        return [("text emotion", top_labels(self.top)), *encoder, *coarse]


class ChoiceCue(StepOutput):
    """How likely the message tells of a choice of their own that could hurt them or someone else
    (``tools/choice_screen.py``): over ``threshold`` the reply must not praise or approve it."""

    score: float
    threshold: float
    reader: str = Field(default="", description="what was read: the backbone's state or the sentence embedding")

    @property
    def risky(self) -> bool:
        return self.score >= self.threshold

    def decisions(self) -> Decisions:
        verdict = "could hurt them or others: not to be praised" if self.risky else "nothing to hold back on"
        return [("their choice", f"{verdict} ({self.score:.2f}, threshold {self.threshold:.2f})")]


class VoiceCue(StepOutput):
    """What the voice carried: the words, and how they were said."""

    transcript: str
    duration_s: float = Field(ge=0.0)
    description: str = Field(description="prosody in words, e.g. 'speaks slowly and quietly'")
    valence: float | None = Field(default=None, ge=-1.0, le=1.0)
    arousal: float | None = Field(default=None, ge=-1.0, le=1.0)
    features: dict[str, float] = Field(default_factory=dict)

    def decisions(self) -> Decisions:
        return [("transcript", self.transcript), ("voice", self.description)]


class FaceCue(StepOutput):
    """What the face showed: an expression distribution over the coarse emotions."""

    description: str
    frames: int = Field(ge=0)
    distribution: list[LabelScore] = Field(default_factory=list)
    peak: CoarseEmotion | None = None
    trend: str | None = None
    features: dict[str, float] = Field(
        default_factory=dict, description="facial geometry from landmarks, averaged over frames (mouth_open, smile, …)"
    )

    def decisions(self) -> Decisions:
        return [("face", f"{self.description} (peak {self.peak.value if self.peak else None})")]


def risk_decisions(safety: SafetyAssessment | None) -> Decisions:
    """The safety screen's finding, when it found a risk."""
    if safety is None or not safety.at_risk:
        return []
    fired = ", ".join(s.source for s in safety.signals if s.fired)
    matched = "; " + ", ".join(safety.matched) if safety.matched else ""
    return [("safety", f"{', '.join(c.value for c in safety.categories)} (by {fired or 'the screen'}{matched})")]


class Cues(StepOutput):
    """What the perception tools found in one turn: the words, the voice, the face, the risk.

    ``listen`` adds ``voice`` and ``look`` adds ``face`` (side by side); ``read`` then adds
    the words of the turn (typed text and transcript, computed once, there), the safety
    screen and the text-emotion ranking. Every agent reads these fields instead of
    re-deriving them. A custom step may add cues of its own as extra fields
    (``{"cues": {"celebrate": ...}}``), read back as attributes.
    """

    model_config = ConfigDict(extra="allow", use_enum_values=False)

    words: str = Field(default="", description="what the person said: typed text and transcript")
    voice: VoiceCue | None = None
    face: FaceCue | None = None
    safety: SafetyAssessment | None = None
    text_emotion: TextEmotionCue | None = None
    choice: ChoiceCue | None = None

    @property
    def risky_choice(self) -> bool:
        """Whether they tell of a choice of their own that could hurt them or others (never to be praised)."""
        return self.choice is not None and self.choice.risky

    @property
    def bad_news(self) -> bool:
        """Whether the text classifier reads their words as bad news (never to be greeted with delight)."""
        return self.text_emotion is not None and self.text_emotion.negative_mass() >= BAD_NEWS_MASS

    def found(self) -> list[str]:
        """Names of the cues present (the words aside), sorted."""
        present = {name for name in self.model_fields_set if getattr(self, name) is not None}
        return sorted(present - {"words"})

    def decisions(self) -> Decisions:
        found: Decisions = []
        for cue in (self.voice, self.face):
            found += cue.decisions() if cue is not None else []
        found += risk_decisions(self.safety)
        found += self.text_emotion.decisions() if self.text_emotion is not None else []
        return found + (self.choice.decisions() if self.choice is not None else [])

