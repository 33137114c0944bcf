"""What an agent decides when the LLM's answer stays unusable after every repair.

A listener must always answer. Each fallback is built by rule from what the earlier steps
decided (the classifier's emotion ranking, the analysis, the strategy) and says nothing it
does not know: no quoted cause it did not find, no feeling the cues did not suggest. The
calling agent marks its trace record with ``fallback`` so a reader sees which turns used one.
"""

from __future__ import annotations

from empathygraph.agents.quotes import clauses
from empathygraph.schemas import (
    ED_TO_COARSE,
    EMOTION_VALENCE_AROUSAL,
    CoarseEmotion,
    EDEmotion,
    EmotionAnalysis,
    EmpathyPlan,
    Strategy,
    TextEmotionCue,
)

# The emotion a turn is given when nothing suggested one: a neutral placeholder (coarse
# neutral, so voice, face and reply stay neutral too).
NO_SIGNAL = EDEmotion.PREPARED
FEELING: dict[CoarseEmotion, str] = {
    CoarseEmotion.SADNESS: "sad",
    CoarseEmotion.ANGER: "frustrated",
    CoarseEmotion.FEAR: "worried",
    CoarseEmotion.DISGUST: "upset",
    CoarseEmotion.JOY: "happy",
    CoarseEmotion.SURPRISE: "surprised",
}
FALLBACK_STRATEGY = Strategy.REFLECTION


def fallback_emotion(cue: TextEmotionCue | None) -> EDEmotion:
    """The classifier's top label, however unsure; the neutral placeholder without one."""
    if cue is not None and cue.top:
        try:
            return EDEmotion(cue.top[0].label)
        except ValueError:
            pass
    return NO_SIGNAL


def fallback_analysis(words: str, cue: TextEmotionCue | None, emotion: EDEmotion | None = None) -> EmotionAnalysis:
    """An analysis from the classifier alone (or ``emotion``, a label already decided); the cause
    is the message's first clause."""
    emotion = emotion or fallback_emotion(cue)
    valence, arousal = EMOTION_VALENCE_AROUSAL[emotion]
    found = clauses(words)
    return EmotionAnalysis(
        emotion=emotion,
        coarse=ED_TO_COARSE[emotion],
        intensity=0.5,
        valence=valence,
        arousal=arousal,
        event_scenario="",
        causes=[found[0]] if found else [],
        label_source="fallback",
    )


def fallback_plan(emotion: EmotionAnalysis, strategy: Strategy | None = None) -> EmpathyPlan:
    """A plan by rule: acknowledge the feeling, with ``strategy`` (default: reflect the feeling)."""
    feeling = FEELING.get(emotion.coarse)
    return EmpathyPlan(
        goal=f"acknowledge that they feel {feeling}" if feeling else "let them know they are heard",
        strategy=strategy or FALLBACK_STRATEGY,
        rationale="the LLM's plan was unusable; planned by rule",
    )


def fallback_reply(emotion: EmotionAnalysis, strategy: Strategy, *, risky_choice: bool = False) -> str:
    """A short, safe reply from the analysis and strategy: it names only what the cues suggested (and
    calls nothing good when they tell of a choice that could hurt them or others)."""
    feeling = FEELING.get(emotion.coarse)
    if feeling is None or (risky_choice and emotion.coarse is CoarseEmotion.JOY):
        opening = "Thank you for telling me. I'm here, and I'm listening."
    elif emotion.coarse is CoarseEmotion.JOY:
        opening = "That sounds really good, and it makes sense that you feel happy."
    else:
        opening = f"That sounds hard, and it makes sense that you feel {feeling}. I'm here with you."
    if strategy is Strategy.QUESTION:
        return f"{opening} What feels most important about it right now?"
    return opening
