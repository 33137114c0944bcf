"""espeak-ng (Debian package ``espeak-ng``): a light formant-synthesis fallback voice.

Voice character comes from espeak-ng's own variants (female/male, grandma/grandpa)
plus its pitch, speed and amplitude flags; no shifting is needed.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import wave
from collections.abc import Iterator

import numpy as np

from empathygraph.generators.base import GeneratorError, SpeechChunk
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.speech.text import sentences
from empathygraph.generators.speech.voice_character import EMOTION_AROUSAL
from empathygraph.schemas import AgeGroup, AvatarProfile, Gender, SpeechStyle, Timbre

_VARIANT: dict[tuple[AgeGroup, Gender], str] = {
    (AgeGroup.CHILD, Gender.FEMALE): "f4",
    (AgeGroup.CHILD, Gender.MALE): "f2",
    (AgeGroup.YOUNG, Gender.FEMALE): "f3",
    (AgeGroup.YOUNG, Gender.MALE): "m3",
    (AgeGroup.MIDDLE_AGED, Gender.FEMALE): "f2",
    (AgeGroup.MIDDLE_AGED, Gender.MALE): "m2",
    (AgeGroup.ELDERLY, Gender.FEMALE): "grandma",
    (AgeGroup.ELDERLY, Gender.MALE): "grandpa",
}
# espeak-ng pitch is 0..99 (50 = the variant's own); children sit far above it.
_AGE_PITCH = {AgeGroup.CHILD: 30, AgeGroup.YOUNG: 0, AgeGroup.MIDDLE_AGED: -5, AgeGroup.ELDERLY: -5}
_TIMBRE_PITCH = {Timbre.HIGH: 10, Timbre.MID: 0, Timbre.LOW: -10}
_WORDS_PER_MINUTE = 165


class EspeakSpeech:
    """Speak with the espeak-ng command line, one process per sentence."""

    name = "espeak"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config
        self.binary = shutil.which("espeak-ng")

    def describe(self, style: SpeechStyle, profile: AvatarProfile) -> dict[str, object]:
        """Return the espeak-ng voice, pitch, speed and amplitude for this reply."""
        # espeak-ng has no expressiveness control: livelier emotions speak a little faster instead.
        pitch = 50 + _AGE_PITCH[profile.age] + _TIMBRE_PITCH[profile.timbre] + 4 * style.pitch
        return {
            "voice": f"{self.config.espeak_voice}+{_VARIANT[(profile.age, profile.gender)]}",
            "pitch": int(max(0, min(99, pitch))),
            "speed_wpm": int(
                _WORDS_PER_MINUTE
                * style.rate
                * (0.9 if profile.age is AgeGroup.ELDERLY else 1.0)
                * (1.0 + 0.08 * EMOTION_AROUSAL[style.emotion])
            ),
            "amplitude": int(60 + 80 * style.energy),
        }

    def stream(self, text: str, style: SpeechStyle, profile: AvatarProfile) -> Iterator[SpeechChunk]:
        """Yield one chunk per sentence, each synthesised by its own espeak-ng call."""
        if self.binary is None:
            raise GeneratorError("espeak: the espeak-ng program is not installed (Debian: apt-get install espeak-ng)")
        voice = self.describe(style, profile)
        for sentence in sentences(text, self.config.max_sentence_chars, self.config.max_text_chars):
            audio, rate = self._speak(sentence, voice)
            yield SpeechChunk(text=sentence, audio=audio, sample_rate=rate)

    def _speak(self, sentence: str, voice: dict[str, object]) -> tuple[np.ndarray, int]:
        command = [
            str(self.binary), "-v", str(voice["voice"]), "-p", str(voice["pitch"]), "-s", str(voice["speed_wpm"]),
            "-a", str(voice["amplitude"]), "--stdout", "--", sentence,
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, timeout=60, check=False)
        if result.returncode != 0:
            message = result.stderr.decode(errors="replace").strip()
            raise GeneratorError(f"espeak: espeak-ng failed for voice {voice['voice']}: {message}")
        with wave.open(io.BytesIO(_fix_stream_header(result.stdout)), "rb") as wav:
            pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
            return pcm.astype(np.float32) / 32768.0, wav.getframerate()


def _fix_stream_header(data: bytes) -> bytes:
    """Set the RIFF and data sizes that espeak-ng leaves unset when it writes to a pipe."""
    if len(data) < 44 or data[:4] != b"RIFF":
        raise GeneratorError("espeak: espeak-ng wrote no WAV audio")
    fixed = bytearray(data)
    fixed[4:8] = (len(data) - 8).to_bytes(4, "little")
    fixed[40:44] = (len(data) - 44).to_bytes(4, "little")
    return bytes(fixed)
