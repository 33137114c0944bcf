"""Emotion-cause agent: what the person feels, how strongly, about what, and why.

The label comes from the text classifier when it is confident (a small LLM is a
poorer 32-way classifier than a trained head); else, by policy, from the LLM under an
enum constraint or from fusing the classifier's top labels with the LLM's likelihood
of each (``emotion_fusion``). The LLM always describes the event and quotes the cause: by default it
picks one of the message's clauses (decoding constrained to them); with ``cause_quote: free`` it copies
words, which are checked against the user's words and re-asked once if they are not a real quote.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Annotated

from langgraph.runtime import Runtime
from pydantic import BaseModel, BeforeValidator, Field

from empathygraph.agents import emotion_fusion
from empathygraph.agents.config import AgentsConfig
from empathygraph.agents.emotion_fusion import fused_label
from empathygraph.agents.fallback import fallback_analysis
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.quotes import clauses, find_quote, nearest_sentence
from empathygraph.agents.small_talk import pleasantry, pleasantry_analysis
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask, clip_text, with_choices
from empathygraph.context import RunContext
from empathygraph.schemas import (
    ED_TO_COARSE,
    EMOTION_VALENCE_AROUSAL,
    INTENSITY_VALUE,
    CoarseEmotion,
    EDEmotion,
    EmotionAnalysis,
    Intensity,
    TextEmotionCue,
)
from empathygraph.state import Exchange, MergState
from empathygraph.trace.records import StepRecord

# "quote", not "cause": asked for a "cause", a small model names a feeling instead of quoting.
QUOTE_FREE = "copy 3 to 8 words of their message that say why"
QUOTE_CLAUSE = "the part of their message that says why"
_CAUSE = '"quote" ({quote}), "intensity" (low, medium or high).'
TASK_GIVEN_LABEL = 'the cause. They seem to feel {label}. JSON: "scenario" (the event, under 8 words), ' + _CAUSE
TASK_WITH_LABEL = (
    'the emotion. JSON: "scenario" (the event, under 8 words), "emotion" ({choices}), ' + _CAUSE
)
ANY_EMOTION = "one word for their feeling"
MAX_TOKENS = 96
# How much the voice's own valence/arousal estimate moves the label's prior.
VOICE_WEIGHT = 0.3


# The model's picture of what happened, cut at a sentence when written too long (a greeting drew a ramble).
Scenario = Annotated[str, BeforeValidator(partial(clip_text, limit=200)), Field(max_length=200)]


class CauseDraft(BaseModel):
    """LLM output when the classifier already named the emotion."""

    scenario: Scenario
    quote: str = Field(max_length=300)
    intensity: Intensity


class LabelledCauseDraft(BaseModel):
    """LLM output when the LLM names the emotion too."""

    scenario: Scenario
    emotion: EDEmotion
    quote: str = Field(max_length=300)
    intensity: Intensity


def classifier_label(cue: TextEmotionCue | None, config: AgentsConfig) -> EDEmotion | None:
    """The classifier's top label when policy and confidence allow it to decide."""
    if cue is None or not cue.top or config.emotion_label == "llm":
        return None
    top = cue.top[0]
    if config.emotion_label in ("auto", "fused") and top.score < config.classifier_min_confidence:
        return None
    try:
        return EDEmotion(top.label)
    except ValueError:
        return None


def llm_choices(cue: TextEmotionCue | None, config: AgentsConfig) -> tuple[str, ...]:
    """The emotions the LLM may name: the classifier's top ``emotion_choices`` (empty: any of the 32)."""
    if cue is None or not cue.top or config.emotion_choices == 0:
        return ()
    return tuple(item.label for item in cue.top[: config.emotion_choices])


def coarse_reading(emotion: EDEmotion, cue: TextEmotionCue | None) -> CoarseEmotion:
    """The coarse emotion: the classifier's, summed over the fine labels, when it read the words; else the label's.

    The sum holds where the 32-way label is unsure: a message read 0.3 *prepared* but 0.45 across
    *anxious*, *apprehensive* and *afraid* is fearful, and the voice and face follow that.
    """
    if cue is not None and cue.coarse:
        return CoarseEmotion(cue.coarse[0].label)
    return ED_TO_COARSE[emotion]


def _blend(prior: float, voice: float | None) -> float:
    if voice is None:
        return prior
    return round((1 - VOICE_WEIGHT) * prior + VOICE_WEIGHT * voice, 3)


def emotion_cause_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Label the emotion, its intensity, valence/arousal, the event and the quoted cause."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    cues = state["cues"]
    words = cues.words
    text_cue = cues.text_emotion
    if (kind := pleasantry(words)) is not None:  # nothing happened to analyse (the model invented events)
        analysis = pleasantry_analysis(kind, words)
        return {"emotion": analysis, "steps": [agent_record("emotion_cause", started, output=analysis,
                                                             inputs={"small_talk": kind},
                                                             notes=[f"{kind} only: read by rule, no LLM call"])]}
    label = classifier_label(text_cue, config)
    label_source = "classifier" if label is not None else "llm"
    steps: list[StepRecord] = []
    chat: list[Exchange] = []
    notes = []
    if label is None and config.emotion_label == "fused" and text_cue is not None and text_cue.top:
        if runtime.context.backbone.scorer is None:
            notes.append(f"{runtime.context.backbone.name} cannot score choices, so the LLM named the emotion")
        else:
            examples = runtime.context.toolbox.emotion_examples(words)
            label, fusion_record, fusion_said = fused_label(runtime.context.backbone, state, text_cue, config, examples)
            label_source = "fused"
            steps.append(fusion_record)
            chat += fusion_said
    message_clauses = clauses(words)
    quotable = message_clauses if config.cause_quote == "clause" else ()
    quote = QUOTE_CLAUSE if quotable else QUOTE_FREE
    schema: type[CauseDraft | LabelledCauseDraft]
    if label is not None:
        schema, task = CauseDraft, TASK_GIVEN_LABEL.format(label=label.value, quote=quote)
    else:
        choices = llm_choices(text_cue, config)
        schema = with_choices(LabelledCauseDraft, "emotion", choices) if choices else LabelledCauseDraft
        task = TASK_WITH_LABEL.format(choices=f"one of: {', '.join(choices)}" if choices else ANY_EMOTION, quote=quote)
    if quotable:
        schema = with_choices(schema, "quote", quotable)
    # A misquote is re-asked with the quote limited to the message's clauses (asked freely again,
    # the model was seen to repeat the same misquote).
    repair_schema = with_choices(schema, "quote", message_clauses) if message_clauses and not quotable else None

    def quoted(draft: CauseDraft | LabelledCauseDraft) -> str | None:
        if find_quote(draft.quote, words) is None:
            return f'"quote" must copy words from their message; "{draft.quote[:80]}" is not in it'
        return None

    # Named by the classifier, the emotion is in the task: its scores would only cost reading time
    # (~25 tokens, ~0.3 s on 2 cores, before the reply's first word).
    messages = build_messages(state, task, history_turns=config.history_turns, earlier=chat,
                              text_scores=label is None)
    answer = ask(runtime.context.backbone, messages, schema, repair_attempts=config.repair_attempts, check=quoted,
                 max_tokens=MAX_TOKENS, repair_schema=repair_schema)
    fallback = None
    if answer.parsed is not None:
        draft = answer.parsed
        cause = find_quote(draft.quote, words) or draft.quote
    elif answer.unchecked is not None:
        draft = answer.unchecked
        cause = nearest_sentence(draft.quote, words)
        fallback = "cause was not quoted from the user's words; the nearest sentence is used"
    else:
        draft = None
    if draft is None:  # the person still deserves a reply: label by the classifier, cause by rule
        analysis = fallback_analysis(words, text_cue, emotion=label)
        analysis = analysis.model_copy(update={"coarse": coarse_reading(analysis.emotion, text_cue)})
        fallback = (f"LLM analysis unusable after {len(answer.attempts)} attempts ({answer.error}); "
                    f"emotion from the classifier ({analysis.emotion.value}), cause = the first clause")
    else:
        emotion = label if label is not None else EDEmotion(draft.emotion)  # type: ignore[union-attr]
        valence, arousal = EMOTION_VALENCE_AROUSAL[emotion]
        voice_va = (cues.voice.valence, cues.voice.arousal) if cues.voice is not None else (None, None)
        analysis = EmotionAnalysis(
            emotion=emotion,
            coarse=coarse_reading(emotion, text_cue),
            intensity=INTENSITY_VALUE[draft.intensity],
            valence=_blend(valence, voice_va[0]),
            arousal=_blend(arousal, voice_va[1]),
            event_scenario=draft.scenario.strip(),
            causes=[cause],
            label_source=label_source,
        )
    record = agent_record(
        "emotion_cause",
        started,
        output=analysis,
        messages=messages,
        answer=answer,
        inputs={"label": label.value if label else None, "label_source": analysis.label_source},
        fallback=fallback,
        notes=notes,
    )
    chat += exchange("emotion_cause", messages, answer.accepted)
    return {"emotion": analysis, "steps": [*steps, record], "chat": chat}


SPEC = AgentSpec(name="emotion_cause", label="emotion-cause agent", node=emotion_cause_node, writes="emotion",
                 output=EmotionAnalysis, then="assess_risk",
                 substeps=(emotion_fusion.VIEW,))
