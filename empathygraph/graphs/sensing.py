"""Perception-tool nodes: the graph's senses, run as parallel branches.

``listen`` (audio) and ``look`` (image or video) run side by side; ``read`` then
screens and classifies every word of the turn, typed or transcribed. A tool that
cannot use its input records why and the turn goes on with the other modalities.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from langgraph.runtime import Runtime

from empathygraph.agents.risk import probe_reading
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import dump
from empathygraph.agents.words_state import words_state
from empathygraph.context import RunContext
from empathygraph.errors import BackendError, EmpathyGraphError
from empathygraph.schemas import Cues, FaceCue, RiskCategory, VoiceCue
from empathygraph.state import MergState, TurnInput
from empathygraph.tools.injection import find_injection
from empathygraph.trace.records import StepRecord

Sense = Literal["listen", "look", "read"]
SENSES: tuple[Sense, ...] = ("listen", "look", "read")


def route_senses(state: MergState) -> list[Sense]:
    """The sensor branches this turn needs (``read`` alone for a text-only turn)."""
    turn = state["turn"]
    senses: list[Sense] = []
    if turn.audio:
        senses.append("listen")
    if turn.image or turn.video:
        senses.append("look")
    return senses or ["read"]


def words_of_turn(turn: TurnInput, voice: VoiceCue | None) -> str:
    """What the person said this turn: typed text and, if any, the transcript of their speech."""
    parts = [turn.text.strip()] if turn.text and turn.text.strip() else []
    if voice is not None and voice.transcript.strip():
        parts.append(voice.transcript.strip())
    return " ".join(parts)


def _sense(step: str, cue_key: str, path: Path, perceive: Callable[[Path], Any]) -> dict:
    started = time.perf_counter()
    try:
        cue = perceive(path)
    except EmpathyGraphError as exc:  # bad input, or a perception model that cannot load
        record = StepRecord(step=step, kind="tool", latency_s=time.perf_counter() - started,
                            input={"path": str(path)}, error=str(exc), notes=["modality skipped"])
        return {"skipped": [f"{step}: {exc}"], "steps": [record]}
    record = StepRecord(step=step, kind="tool", latency_s=time.perf_counter() - started,
                        input={"path": str(path)}, output=dump(cue))
    return {"cues": Cues(**{cue_key: cue}), "steps": [record]}


def listen_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Transcribe the speech and describe the voice."""
    return _sense("listen", "voice", state["turn"].audio, runtime.context.toolbox.hear)


def look_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Read the facial expression in the image or video."""
    turn = state["turn"]
    return _sense("look", "face", turn.video or turn.image, runtime.context.toolbox.see)


def read_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Gather the words of the turn once, screen them for risk and rank the emotions they express."""
    started = time.perf_counter()
    toolbox = runtime.context.toolbox
    words = words_of_turn(state["turn"], state["cues"].voice)
    cues = Cues(words=words)
    safety = runtime.context.config.safety
    history = state["history"]
    found = words_state(runtime.context, words, history)
    notes = list(found.notes)
    if safety.enabled:
        earlier = [entry.user for entry in history[-safety.context_turns:]] if safety.context_turns else []
        careful = any(entry.risk is not RiskCategory.NONE for entry in history)
        try:
            probe = probe_reading(found)
        except BackendError as exc:  # a probe file that does not fit this state
            notes.append(f"risk probe failed, the classifier alone screened: {exc}")
            probe = None
        cues.safety = toolbox.screen_safety(words, earlier, careful=careful, classifier=safety.classifier, probe=probe)
        if safety.classifier and toolbox.risk_classifier_unavailable:
            notes.append(f"risk classifier unavailable, phrase patterns only: {toolbox.risk_classifier_unavailable}")
    else:
        notes.append("safety screen disabled by configuration")
    if words and runtime.context.config.perception.text_emotion:
        try:
            cue = toolbox.text_emotion(words, llm_state=found.state if found.emotion is not None else None)
        except BackendError as exc:  # a probe file that does not fit: the encoder alone reads the words
            notes.append(f"emotion probe not blended ({exc})")
            cue = toolbox.text_emotion(words)
        if cue is None:
            notes.append("no text-emotion classifier installed")
        else:
            cues.text_emotion = cue
        if toolbox.word_emotion_unavailable:
            notes.append(f"word emotion reader unavailable, the encoder read alone: {toolbox.word_emotion_unavailable}")
    try:  # the choice probe over the state read above, else the encoder screen (none without the encoder)
        cues.choice = toolbox.choice(words, llm_state=found.state if found.choice is not None else None)
    except BackendError as exc:
        notes.append(f"choice screen unavailable: {exc}")
    if not words:
        notes.append("no words this turn (speech was not transcribed)")
    if attempt := find_injection(words):
        notes.append(f"possible prompt injection in the person's words ({'; '.join(attempt)}): "
                     "passed on as their words, quoted, never as instructions")
    record = StepRecord(
        step="read",
        kind="tool",
        latency_s=time.perf_counter() - started,
        input={"words": words},
        output=cues.model_dump(mode="json", include=set(cues.found())),
        notes=notes,
    )
    return {"cues": cues, "steps": [record]}


# A sense that cannot use its input says so in ``skipped``.
LISTEN = AgentSpec(name="listen", label="listened to the voice", node=listen_node, kind="tool", output=VoiceCue,
                   resets={"skipped": None}, reads="audio", then="read", fixed=True)
LOOK = AgentSpec(name="look", label="looked at the face", node=look_node, kind="tool", output=FaceCue,
                 resets={"skipped": None}, reads="face", then="read", fixed=True)
READ = AgentSpec(name="read", label="read the words", node=read_node, kind="tool", writes="cues", output=Cues,
                 then="perception", fixed=True)
