"""Audio helpers every generator shares: WAV I/O and the loudness envelope."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np


def write_wav(path: Path, audio: np.ndarray, sample_rate: int) -> None:
    """Write mono float audio in [-1, 1] as 16-bit PCM."""
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm.tobytes())


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Read a 16-bit PCM WAV (mono, or the first channel) as float32 in [-1, 1]."""
    with wave.open(str(path), "rb") as src:
        if src.getsampwidth() != 2:
            raise ValueError(f"{path}: expected 16-bit PCM, got {8 * src.getsampwidth()}-bit")
        frames = np.frombuffer(src.readframes(src.getnframes()), dtype="<i2")
        channels = src.getnchannels()
        rate = src.getframerate()
    return (frames.reshape(-1, channels)[:, 0].astype(np.float32) / 32768.0), rate


def loudness_envelope(audio: np.ndarray, sample_rate: int, fps: float, window_s: float = 0.04) -> np.ndarray:
    """Return the RMS loudness (dB) of a ``window_s`` window centred on each video frame."""
    n_frames = max(1, int(np.ceil(len(audio) / sample_rate * fps)))
    half = int(window_s * sample_rate / 2)
    padded = np.pad(np.asarray(audio, dtype=np.float64), (half, half + int(sample_rate / fps) + 1))
    cumsum = np.concatenate([[0.0], np.cumsum(padded**2)])
    centres = (np.arange(n_frames) * sample_rate / fps).astype(int) + half
    energy = (cumsum[centres + half] - cumsum[centres - half]) / max(1, 2 * half)
    return 10.0 * np.log10(energy + 1e-10)
