"""The prompt every agent shares, so llama.cpp can reuse its KV cache.

Every agent sends one system message and one user message. The user message is
``context`` (the conversation and this turn's cues: the same for every agent of a
turn), then ``findings`` (what earlier agents concluded, in graph order), then the
agent's own short ``task``. Consecutive agents therefore share everything up to
the previous agent's task, and the model re-reads only the new tail.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from empathygraph.schemas import FaceCue, TextEmotionCue, VoiceCue
from empathygraph.state import MergState

SYSTEM_PROMPT = (
    "You are the mind of a warm, careful listener talking with a person who shares how they feel. "
    "Your thinking is split into small steps. At each step answer only with the JSON asked for, "
    "briefly, in plain English, and base it on what the person actually said."
)


def words_of_turn(state: MergState) -> str:
    """What the person said this turn: typed text and, if any, the transcript of their speech."""
    turn = state["turn"]
    parts = [turn.text.strip()] if turn.text and turn.text.strip() else []
    voice = state.get("cues", {}).get("voice")
    if isinstance(voice, VoiceCue) and voice.transcript.strip():
        parts.append(voice.transcript.strip())
    return " ".join(parts)


def _cue_lines(state: MergState) -> list[str]:
    cues = state.get("cues", {})
    lines = []
    text = cues.get("text_emotion")
    if isinstance(text, TextEmotionCue) and text.top:
        ranked = ", ".join(f"{item.label} {item.score:.2f}" for item in text.top[:3])
        lines.append(f"- their words suggest: {ranked}")
    voice = cues.get("voice")
    if isinstance(voice, VoiceCue) and voice.description:
        lines.append(f"- their voice: {voice.description}")
    face = cues.get("face")
    if isinstance(face, FaceCue) and face.description:
        lines.append(f"- their face: {face.description}")
    return lines


def context_block(state: MergState, history_turns: int) -> str:
    """The conversation so far and this turn's words and cues."""
    lines = []
    history = state.get("history", [])[-history_turns:] if history_turns else []
    if history:
        lines.append("Earlier in the conversation:")
        for entry in history:
            lines.append(f"Person: {entry.user}")
            lines.append(f"Listener: {entry.reply}")
        lines.append("")
    lines.append(f'The person now says: "{words_of_turn(state)}"')
    cue_lines = _cue_lines(state)
    if cue_lines:
        lines.append("Cues:")
        lines.extend(cue_lines)
    return "\n".join(lines)


def findings_block(state: MergState, upto: str) -> str:
    """What the agents before ``upto`` concluded, in graph order."""
    order = ["perception", "emotion_cause", "empathy_strategy", "response"]
    keep = order[: order.index(upto)] if upto in order else order
    lines = []
    perception = state.get("perception")
    if "perception" in keep and perception is not None and len(perception.modalities) > 1:
        lines.append(f"Reading: {perception.reading}")
    emotion = state.get("emotion")
    if "emotion_cause" in keep and emotion is not None:
        cause = "; ".join(f'"{c}"' for c in emotion.causes)
        lines.append(f"Emotion: {emotion.emotion.value} ({emotion.coarse.value}), intensity {emotion.intensity:.1f}")
        lines.append(f"Situation: {emotion.event_scenario}")
        lines.append(f"Cause: {cause}")
    empathy = state.get("empathy")
    if "empathy_strategy" in keep and empathy is not None:
        lines.append(f"Goal: {empathy.goal}")
        lines.append(f"Strategy: {empathy.strategy.value}")
    response = state.get("response")
    if "response" in keep and response is not None:
        lines.append(f'Draft reply: "{response.text}"')
    return "\n".join(lines)


def build_messages(state: MergState, task: str, *, agent: str, history_turns: int) -> list[BaseMessage]:
    """The two messages an agent sends: the shared system prompt and context, then its task."""
    findings = findings_block(state, agent)
    body = context_block(state, history_turns)
    if findings:
        body += "\n\n" + findings
    return [SystemMessage(content=SYSTEM_PROMPT), HumanMessage(content=f"{body}\n\nStep: {task}")]


def as_prompt_record(messages: list[BaseMessage]) -> list[dict[str, str]]:
    """Messages as plain dicts for the trace."""
    return [{"role": m.type, "content": str(m.content)} for m in messages]
