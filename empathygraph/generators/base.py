"""What a media generator offers the graph: render a response plan to files.

Two small protocols sit here:
- ``SpeechSynthesizer``: reply text + style + profile -> speech, sentence by sentence;
- ``AvatarAnimator``: speech + directives + profile -> a talking-face MP4.
The graph sees a renderer (``PlanRenderer``) only through ``context.MediaRenderer``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from empathygraph.schemas import AvatarDirectives, AvatarProfile, SpeechStyle


@dataclass
class RenderedMedia:
    """Files one generator wrote, and what the trace should know about it.

    Attributes:
        files: role -> path, e.g. ``{"audio": reply.wav}`` or ``{"video": avatar.mp4}``.
        backend: which backend produced them (``"piper"``, ``"procedural"``, ...).
        settings: the settings that shaped the output (voice, pitch ratio, size, fps, ...).
        error: why this medium is missing; ``None`` when it rendered.
        seconds: wall-clock seconds the generator took.
        first_chunk_seconds: seconds until the first streamed piece was ready (speech only).
        media_seconds: duration of the rendered audio or video.
    """

    files: dict[str, Path] = field(default_factory=dict)
    backend: str = ""
    settings: dict[str, object] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    first_chunk_seconds: float | None = None
    media_seconds: float | None = None


class GeneratorError(Exception):
    """A generator cannot render; the message names the thing at fault and the problem."""


@dataclass
class PhonemeTiming:
    """One phoneme and where it sits in the audio, in seconds."""

    phoneme: str
    start: float
    end: float


@dataclass
class SpeechChunk:
    """The audio of one sentence, ready to play while later sentences synthesise.

    Attributes:
        text: the sentence as spoken.
        audio: mono float32 samples in [-1, 1].
        sample_rate: samples per second.
        phonemes: phoneme timings relative to the chunk start, when the backend gives them.
    """

    text: str
    audio: np.ndarray
    sample_rate: int
    phonemes: list[PhonemeTiming] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return len(self.audio) / self.sample_rate


@dataclass
class Speech:
    """A whole reply's audio, joined from its chunks."""

    audio: np.ndarray
    sample_rate: int
    phonemes: list[PhonemeTiming] = field(default_factory=list)
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def duration(self) -> float:
        return len(self.audio) / self.sample_rate


class SpeechSynthesizer(Protocol):
    """A TTS backend that speaks a reply one sentence at a time."""

    name: str

    def describe(self, style: SpeechStyle, profile: AvatarProfile) -> dict[str, object]:
        """Return the voice settings that ``stream`` would use, for the trace."""
        ...

    def stream(self, text: str, style: SpeechStyle, profile: AvatarProfile) -> Iterator[SpeechChunk]:
        """Yield one chunk per sentence; raise ``GeneratorError`` when the voice cannot be used."""
        ...


class AvatarAnimator(Protocol):
    """An avatar backend that turns speech into a talking-face video."""

    name: str

    def animate(
        self, speech: Speech, audio_path: Path, directives: AvatarDirectives, profile: AvatarProfile, out_path: Path
    ) -> dict[str, object]:
        """Write an MP4 (video + the speech's audio) to ``out_path``; return its settings."""
        ...
