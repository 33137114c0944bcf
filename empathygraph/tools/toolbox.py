"""The perception tools a graph run can use, loaded lazily and shared across turns.

Tools are plain functions of their inputs with no LLM inside; this class only
holds the loaded models so a second turn does not load them again.
"""

from __future__ import annotations

from pathlib import Path

from empathygraph.errors import InputError
from empathygraph.schemas import FaceCue, SafetyAssessment, TextEmotionCue, VoiceCue
from empathygraph.tools import safety
from empathygraph.tools.config import PerceptionConfig


class ToolBox:
    """Perception tools behind one object: text, safety, voice and face."""

    def __init__(self, config: PerceptionConfig | None = None) -> None:
        self.config = config or PerceptionConfig()

    def screen_safety(self, text: str) -> SafetyAssessment:
        """Crisis screen over the user's words (typed and transcribed)."""
        return safety.screen(text)

    def text_emotion(self, text: str) -> TextEmotionCue | None:
        """Rank the 32 ED emotions for ``text``; None when no classifier is installed."""
        return None

    def hear(self, audio: Path) -> VoiceCue:
        """Transcribe and describe the voice in ``audio``."""
        raise InputError("speech perception is not available in this build", audio)

    def see(self, media: Path) -> FaceCue:
        """Read the facial expression in an image or video."""
        raise InputError("face perception is not available in this build", media)
