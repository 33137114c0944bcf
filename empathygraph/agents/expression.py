"""Derive how the reply sounds and looks from the analysis: rules, no LLM needed.

The listener mirrors gentle emotions (sadness, joy), meets a frightened or anxious
person with concern (the raised inner brows and slower, softer voice of its sad
expression), and stays calm and warm in front of hostile ones: an avatar that looks
angry at an angry user, or frightened at a frightened one, helps nobody, and a blank
face at someone who cannot sleep before an exam reads as indifference.
"""

from __future__ import annotations

from empathygraph.schemas import (
    AvatarDirectives,
    CoarseEmotion,
    EmotionAnalysis,
    SpeechStyle,
    Strategy,
)

# Which expression the listener shows for each user emotion.
LISTENER_EXPRESSION: dict[CoarseEmotion, CoarseEmotion] = {
    CoarseEmotion.JOY: CoarseEmotion.JOY,
    CoarseEmotion.SURPRISE: CoarseEmotion.SURPRISE,
    CoarseEmotion.SADNESS: CoarseEmotion.SADNESS,
    CoarseEmotion.ANGER: CoarseEmotion.NEUTRAL,
    CoarseEmotion.FEAR: CoarseEmotion.SADNESS,  # concern
    CoarseEmotion.DISGUST: CoarseEmotion.NEUTRAL,
    CoarseEmotion.NEUTRAL: CoarseEmotion.NEUTRAL,
}
# (rate multiplier, pitch semitones, energy) per listener expression.
VOICE_SHAPE: dict[CoarseEmotion, tuple[float, float, float]] = {
    CoarseEmotion.JOY: (1.08, 1.5, 0.75),
    CoarseEmotion.SURPRISE: (1.05, 2.0, 0.7),
    CoarseEmotion.SADNESS: (0.88, -1.5, 0.35),
    CoarseEmotion.NEUTRAL: (0.95, 0.0, 0.5),
    CoarseEmotion.ANGER: (1.0, 0.0, 0.6),
    CoarseEmotion.FEAR: (0.95, 0.5, 0.45),
    CoarseEmotion.DISGUST: (0.95, -0.5, 0.5),
}


def listener_expression(analysis: EmotionAnalysis) -> CoarseEmotion:
    """The expression the listener's face and voice should carry."""
    return LISTENER_EXPRESSION[analysis.coarse]


def speech_style(analysis: EmotionAnalysis) -> SpeechStyle:
    """Voice settings: calmer and slower for distress, brighter for joy, scaled by intensity."""
    expression = listener_expression(analysis)
    rate, pitch, energy = VOICE_SHAPE[expression]
    # A very upset person is answered more slowly still.
    if analysis.valence < 0 and analysis.intensity > 0.7:
        rate -= 0.05
    return SpeechStyle(emotion=expression, rate=round(rate, 2), pitch=pitch, energy=energy)


def avatar_directives(analysis: EmotionAnalysis, strategy: Strategy, *, crisis: bool = False) -> AvatarDirectives:
    """Face settings: expression and intensity from the emotion, head and gaze from the strategy."""
    expression = CoarseEmotion.NEUTRAL if crisis else listener_expression(analysis)
    intensity = 0.3 if crisis else round(0.3 + 0.5 * analysis.intensity, 2)
    if strategy in (Strategy.QUESTION, Strategy.REFLECTION):
        head = "tilt"
    elif strategy in (Strategy.AFFIRMATION, Strategy.RESTATEMENT, Strategy.SELF_DISCLOSURE):
        head = "nod"
    else:
        head = "still"
    return AvatarDirectives(expression=expression, intensity=intensity, gaze="at_user", head_motion=head)
