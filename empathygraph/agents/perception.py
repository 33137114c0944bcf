"""Perception agent: fuse the turn's cues into one PerceptionReport.

Cue disagreement is found by rule (valence signs of words, voice and face), which
is exact and free. The LLM is asked for a reading only when there is something to
fuse: the turn carries voice or face cues (``agents.perception_llm: auto``).
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.schemas import (
    EMOTION_VALENCE_AROUSAL,
    CoarseEmotion,
    EDEmotion,
    FaceCue,
    PerceptionReport,
    SafetyAssessment,
    TextEmotionCue,
    VoiceCue,
)
from empathygraph.state import MergState

TASK = (
    "the cues. How does the person seem from their words, voice and face? Say so if these disagree. "
    'JSON: {"reading": "..."} (under 30 words)'
)

COARSE_VALENCE: dict[CoarseEmotion, float] = {
    CoarseEmotion.JOY: 0.8,
    CoarseEmotion.SURPRISE: 0.1,
    CoarseEmotion.NEUTRAL: 0.0,
    CoarseEmotion.SADNESS: -0.7,
    CoarseEmotion.ANGER: -0.7,
    CoarseEmotion.FEAR: -0.7,
    CoarseEmotion.DISGUST: -0.6,
}
MAX_TOKENS = 64
# Below this absolute valence a cue counts as neither positive nor negative.
_CLEAR_VALENCE = 0.3


class PerceptionDraft(BaseModel):
    """What the LLM adds to the report."""

    reading: str = Field(max_length=400)


def _text_valence(cue: TextEmotionCue | None) -> tuple[str, float] | None:
    if cue is None or not cue.top:
        return None
    label = cue.top[0].label
    try:
        return label, EMOTION_VALENCE_AROUSAL[EDEmotion(label)][0]
    except ValueError:
        return None


def find_conflicts(text: TextEmotionCue | None, voice: VoiceCue | None, face: FaceCue | None) -> list[str]:
    """Pairs of cues whose valence points in opposite clear directions."""
    signals: list[tuple[str, str, float]] = []
    if (found := _text_valence(text)) is not None:
        signals.append(("words", found[0], found[1]))
    if voice is not None and voice.valence is not None:
        signals.append(("voice", "positive" if voice.valence > 0 else "negative", voice.valence))
    if face is not None and face.peak is not None:
        signals.append(("face", face.peak.value, COARSE_VALENCE[face.peak]))
    conflicts = []
    for i, (name_a, label_a, val_a) in enumerate(signals):
        for name_b, label_b, val_b in signals[i + 1 :]:
            if abs(val_a) >= _CLEAR_VALENCE and abs(val_b) >= _CLEAR_VALENCE and val_a * val_b < 0:
                conflicts.append(f"{name_a} read as {label_a} but {name_b} as {label_b}")
    return conflicts


def rule_reading(text: TextEmotionCue | None, voice: VoiceCue | None, face: FaceCue | None) -> str:
    """A reading assembled from the cues themselves, used when no LLM fusion is needed."""
    parts = []
    if text is not None and text.top:
        parts.append(f"their words suggest {text.top[0].label}")
    if voice is not None and voice.description:
        parts.append(f"their voice {voice.description}")
    if face is not None and face.description:
        parts.append(f"their face {face.description}")
    return ("; ".join(parts) or "only their words are available") + "."


def perception_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Fuse cues into a PerceptionReport (LLM only when there are several modalities)."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    cues = state["cues"]
    text, voice, face = cues.text_emotion, cues.voice, cues.face
    conflicts = find_conflicts(text, voice, face)
    use_llm = config.perception_llm == "always" or (config.perception_llm == "auto" and (voice or face))
    messages = answer = None
    reading = rule_reading(text, voice, face)
    fallback = None
    if use_llm:
        messages = build_messages(state, TASK, history_turns=config.history_turns)
        answer = ask(runtime.context.backbone, messages, PerceptionDraft, repair_attempts=config.repair_attempts,
                     max_tokens=MAX_TOKENS)
        if answer.parsed is not None and answer.parsed.reading.strip():
            reading = answer.parsed.reading.strip()
        else:
            fallback = f"LLM reading unusable ({answer.error}); rule-based reading used"
    modalities = list(state["turn"].modalities)
    report = PerceptionReport(
        text=cues.words,
        modalities=modalities,
        text_emotions=text.top if text else [],
        voice=voice.description if voice else None,
        face=face.description if face else None,
        conflicts=conflicts,
        reading=reading,
        safety=cues.safety or SafetyAssessment(),
        skipped=list(state["skipped"]),
    )
    record = agent_record(
        "perception",
        started,
        output=report,
        messages=messages,
        answer=answer,
        inputs={"cues": cues.found()},
        fallback=fallback,
        notes=[] if use_llm else ["single modality: cues need no LLM fusion"],
    )
    chat = exchange("perception", messages, answer.accepted if answer else None)
    return {"perception": report, "steps": [record], "chat": chat}


SPEC = AgentSpec(name="perception", label="perception agent", node=perception_node, writes="perception",
                 output=PerceptionReport, then="emotion_cause")
