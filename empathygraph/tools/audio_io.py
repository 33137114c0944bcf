"""Load an audio file of any common format as 16 kHz mono samples, refusing bad input early."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import InputError

SAMPLE_RATE = 16_000
# Sample rates and channel counts real recordings use; a header outside them is corrupt or hostile.
MIN_RATE, MAX_RATE, MAX_CHANNELS = 1_000, 384_000, 32
AUDIO_SUFFIXES = frozenset({".wav", ".mp3", ".m4a", ".ogg", ".oga", ".opus", ".flac", ".webm", ".aac", ".mp4"})


@dataclass(frozen=True)
class Audio:
    """Decoded audio: mono float32 samples in [-1, 1] at ``SAMPLE_RATE``."""

    samples: np.ndarray
    path: Path

    @property
    def duration_s(self) -> float:
        return len(self.samples) / SAMPLE_RATE


def check_file(path: Path, *, suffixes: frozenset[str], max_mb: float, kind: str) -> None:
    """Raise InputError unless ``path`` is an existing, non-empty file of a known kind and size."""
    if not path.is_file():
        raise InputError(f"{kind} file not found", path)
    if path.suffix.lower() not in suffixes:
        raise InputError(f"unsupported {kind} format '{path.suffix}' (use one of {', '.join(sorted(suffixes))})", path)
    size_mb = path.stat().st_size / 1e6
    if size_mb == 0:
        raise InputError(f"{kind} file is empty", path)
    if size_mb > max_mb:
        raise InputError(f"{kind} file is {size_mb:.0f} MB, over the {max_mb:.0f} MB limit", path)


def load_audio(path: Path, *, max_seconds: float, max_mb: float, min_rms_db: float) -> Audio:
    """Decode ``path`` to 16 kHz mono; refuse corrupt, over-long or silent audio.

    Args:
        path: an audio file (wav, mp3, m4a, ogg, flac, …; any rate, mono or stereo).
        max_seconds: longer audio is refused before it is decoded in full.
        max_mb: larger files are refused before they are opened.
        min_rms_db: audio whose overall level is below this is refused as silence.

    Raises:
        InputError: naming the file and the problem.
    """
    import av  # lazy: PyAV loads FFmpeg's libraries

    path = Path(path)
    check_file(path, suffixes=AUDIO_SUFFIXES, max_mb=max_mb, kind="audio")
    chunks: list[np.ndarray] = []
    try:
        with av.open(str(path), metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise InputError("has no audio stream", path)
            stream = container.streams.audio[0]
            if stream.codec_context is None:  # a container cut before the stream's sample description
                raise InputError("audio stream has no codec description (corrupt or truncated?)", path)
            # Limits from the header, before a sample is decoded.
            if not MIN_RATE <= (stream.rate or 0) <= MAX_RATE:
                raise InputError(f"audio declares {stream.rate} samples a second (expected {MIN_RATE}..{MAX_RATE})", path)
            if not 1 <= stream.channels <= MAX_CHANNELS:
                raise InputError(f"audio declares {stream.channels} channels (expected 1..{MAX_CHANNELS})", path)
            declared = float(stream.duration * stream.time_base) if stream.duration and stream.time_base else None
            if declared is None and container.duration:
                declared = container.duration / 1e6
            if declared is not None and declared > max_seconds:
                raise InputError(f"audio is {declared:.0f} s long, over the {max_seconds:.0f} s limit", path)
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
            decoded = 0
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    chunk = out.to_ndarray().reshape(-1)
                    chunks.append(chunk)
                    decoded += len(chunk)
                if decoded > max_seconds * SAMPLE_RATE:
                    raise InputError(f"audio is over the {max_seconds:.0f} s limit", path)
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
    except InputError:
        raise
    except (av.error.FFmpegError, ValueError, IndexError, OverflowError, ZeroDivisionError, OSError) as exc:
        raise InputError(f"cannot decode audio (corrupt or truncated?): {exc}", path) from exc
    samples = np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
    if len(samples) < SAMPLE_RATE // 10:
        raise InputError("audio is empty or shorter than 0.1 s (corrupt or truncated?)", path)
    bad = int(np.count_nonzero(~np.isfinite(samples)))
    if bad:
        raise InputError(f"audio holds {bad} samples that are not numbers (NaN or infinite; corrupt?)", path)
    rms_db = 20 * np.log10(float(np.sqrt(np.mean(samples**2))) + 1e-12)
    if rms_db < min_rms_db:
        raise InputError(f"audio is silent (level {rms_db:.0f} dBFS)", path)
    return Audio(samples=samples, path=path)
