"""Coqui XTTS v2 (extra ``coqui``): a neural voice cloned from a reference clip per profile.

Needs ``pip install 'empathygraph[coqui]'`` plus a local XTTS v2 checkpoint folder
(``config.json``, ``model.pth``, ``vocab.json``) and a folder of reference voices named
``<gender>_<timbre>.wav`` (e.g. ``female_mid.wav``); ``<age>_<gender>_<timbre>.wav``
wins when present. Nothing is downloaded at run time.
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
from empathygraph.generators.speech.voice_character import EMOTION_AROUSAL
from empathygraph.schemas import AvatarProfile, SpeechStyle

XTTS_SAMPLE_RATE = 24000


@lru_cache(maxsize=1)
def _load(model_dir: Path) -> Any:
    try:
        from TTS.tts.configs.xtts_config import XttsConfig
        from TTS.tts.models.xtts import Xtts
    except ImportError as exc:
        raise GeneratorError(
            "coqui: Coqui TTS is not installed; install the extra: pip install 'empathygraph[coqui]'"
        ) from exc
    config_file = model_dir / "config.json"
    if not config_file.is_file():
        raise GeneratorError(f"coqui: no XTTS checkpoint in {model_dir} (config.json is missing)")
    config = XttsConfig()
    config.load_json(str(config_file))
    model = Xtts.init_from_config(config)
    model.load_checkpoint(config, checkpoint_dir=str(model_dir), use_deepspeed=False)
    return model


class CoquiSpeech:
    """Speak with XTTS v2, conditioning on a reference voice chosen by the profile."""

    name = "coqui"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config

    def reference_voice(self, profile: AvatarProfile) -> Path:
        """Return the reference clip for ``profile``; the most specific file name wins."""
        folder = self.config.coqui_speakers_dir
        if folder is None:
            raise GeneratorError("coqui: set generators.coqui_speakers_dir to a folder of <gender>_<timbre>.wav clips")
        names = [
            f"{profile.age.value}_{profile.gender.value}_{profile.timbre.value}.wav",
            f"{profile.gender.value}_{profile.timbre.value}.wav",
            f"{profile.gender.value}_mid.wav",
        ]
        for name in names:
            if (folder / name).is_file():
                return folder / name
        raise GeneratorError(f"coqui: no reference voice for this profile in {folder}: expected one of {names}")

    def describe(self, style: SpeechStyle, profile: AvatarProfile) -> dict[str, object]:
        """Return the checkpoint, reference voice and sampling settings for this reply."""
        try:
            reference: str | None = self.reference_voice(profile).name
        except GeneratorError:
            reference = None
        return {
            "model_dir": str(self.config.coqui_model_dir),
            "reference": reference,
            "language": self.config.coqui_language,
            "speed": round(style.rate, 3),
            "temperature": round(0.65 + 0.15 * EMOTION_AROUSAL[style.emotion], 3),
        }

    def stream(self, text: str, style: SpeechStyle, profile: AvatarProfile) -> Iterator[SpeechChunk]:
        """Yield one chunk per sentence."""
        if self.config.coqui_model_dir is None:
            raise GeneratorError("coqui: set generators.coqui_model_dir to a local XTTS v2 checkpoint folder")
        pieces = sentences(text, self.config.max_sentence_chars, self.config.max_text_chars)
        reference = self.reference_voice(profile)
        model = _load(self.config.coqui_model_dir)
        latent, speaker = model.get_conditioning_latents(audio_path=[str(reference)])
        settings = self.describe(style, profile)
        for sentence in pieces:
            out = model.inference(
                sentence,
                self.config.coqui_language,
                latent,
                speaker,
                temperature=settings["temperature"],
                speed=settings["speed"],
            )
            audio = np.asarray(out["wav"], dtype=np.float32)
            yield SpeechChunk(text=sentence, audio=audio, sample_rate=XTTS_SAMPLE_RATE)
