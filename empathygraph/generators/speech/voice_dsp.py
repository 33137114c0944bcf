"""Shift a voice's pitch and formants independently, cheaply enough to keep TTS real-time.

Pitch: WSOLA time-stretch by the pitch ratio, then resample back to the original
length (moves F0 and formants together). Formants: re-shape each STFT frame's
cepstral spectral envelope so the formants land at ``formant_ratio`` instead of the
pitch ratio. Both steps are O(n) in numpy/scipy: a few ms per second of audio.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.signal import resample_poly

_FRAME = 1024
_HOP = 256


def shift_voice(audio: np.ndarray, sample_rate: int, pitch_ratio: float, formant_ratio: float) -> np.ndarray:
    """Return ``audio`` with F0 times ``pitch_ratio`` and formants times ``formant_ratio``, same length."""
    audio = np.asarray(audio, dtype=np.float32)
    if len(audio) < _FRAME or (abs(pitch_ratio - 1.0) < 1e-3 and abs(formant_ratio - 1.0) < 1e-3):
        return audio
    shifted = audio
    if abs(pitch_ratio - 1.0) >= 1e-3:
        stretched = time_stretch(audio, pitch_ratio)
        shifted = resample_to(stretched, len(audio))
    warp = formant_ratio / pitch_ratio
    if abs(warp - 1.0) >= 1e-3:
        shifted = warp_envelope(shifted, sample_rate, warp)
    peak = float(np.max(np.abs(shifted))) or 1.0
    source_peak = float(np.max(np.abs(audio))) or 1.0
    return (shifted * (source_peak / peak)).astype(np.float32)


def resample_to(audio: np.ndarray, length: int) -> np.ndarray:
    """Resample ``audio`` (band-limited, polyphase) to exactly ``length`` samples."""
    ratio = Fraction(length, len(audio)).limit_denominator(256)
    out = resample_poly(audio, ratio.numerator, ratio.denominator)
    if len(out) >= length:
        return out[:length]
    return np.pad(out, (0, length - len(out)))


def time_stretch(audio: np.ndarray, factor: float, frame: int = 512, tolerance: int = 160) -> np.ndarray:
    """Lengthen ``audio`` by ``factor`` without changing its pitch (WSOLA).

    Each output frame copies the input segment, near its nominal position, that best
    continues the previous one (highest cross-correlation), so periods line up.
    """
    hop_out = frame // 2
    hop_in = hop_out / factor
    window = np.hanning(frame).astype(np.float32)
    n_frames = int((len(audio) - frame - 2 * tolerance) / hop_in)
    if n_frames < 2:
        return resample_to(audio, int(len(audio) * factor))
    padded = np.pad(audio, (tolerance, tolerance + frame))
    out = np.zeros(n_frames * hop_out + frame, dtype=np.float32)
    norm = np.zeros_like(out)
    previous = tolerance
    for k in range(n_frames):
        nominal = int(k * hop_in) + tolerance
        if k == 0:
            pos = nominal
        else:
            target = padded[previous + hop_out : previous + hop_out + frame]
            region = padded[nominal - tolerance : nominal + tolerance + frame]
            scores = np.correlate(region, target, mode="valid")
            pos = nominal - tolerance + int(np.argmax(scores))
        out[k * hop_out : k * hop_out + frame] += window * padded[pos : pos + frame]
        norm[k * hop_out : k * hop_out + frame] += window
        previous = pos
    out /= np.maximum(norm, 1e-3)
    target_len = int(len(audio) * factor)
    return out[:target_len] if len(out) >= target_len else np.pad(out, (0, target_len - len(out)))


def warp_envelope(audio: np.ndarray, sample_rate: int, warp: float) -> np.ndarray:
    """Move the spectral envelope's formants by ``warp`` and keep the harmonics where they are."""
    window = np.hanning(_FRAME).astype(np.float32)
    n_frames = 1 + (len(audio) + _FRAME) // _HOP
    padded = np.pad(audio, (_FRAME // 2, _FRAME + n_frames * _HOP - len(audio)))
    frames_in = np.lib.stride_tricks.sliding_window_view(padded, _FRAME)[::_HOP][:n_frames]
    spectrum = np.fft.rfft(frames_in * window, axis=1)
    envelope = _cepstral_envelope(np.abs(spectrum), sample_rate)
    bins = np.arange(spectrum.shape[1], dtype=np.float32)
    source_bins = np.clip(bins / warp, 0, spectrum.shape[1] - 1)
    lo = np.floor(source_bins).astype(int)
    hi = np.minimum(lo + 1, spectrum.shape[1] - 1)
    frac = source_bins - lo
    warped = envelope[:, lo] * (1 - frac) + envelope[:, hi] * frac
    gain = np.clip(warped / np.maximum(envelope, 1e-8), 0.05, 20.0)
    frames = np.fft.irfft(spectrum * gain, n=_FRAME, axis=1) * window
    out = np.zeros(padded.shape[0], dtype=np.float64)
    norm = np.zeros_like(out)
    squared = window**2
    for k, frame in enumerate(frames):
        out[k * _HOP : k * _HOP + _FRAME] += frame
        norm[k * _HOP : k * _HOP + _FRAME] += squared
    out /= np.maximum(norm, 1e-3)
    return out[_FRAME // 2 : _FRAME // 2 + len(audio)].astype(np.float32)


def _cepstral_envelope(magnitude: np.ndarray, sample_rate: int, quefrency_s: float = 0.0015) -> np.ndarray:
    """Smooth each frame's log spectrum by keeping only its low-quefrency cepstrum."""
    log_mag = np.log(np.maximum(magnitude, 1e-6))
    cepstrum = np.fft.irfft(log_mag, axis=1)
    keep = max(8, int(quefrency_s * sample_rate))
    cepstrum[:, keep:-keep] = 0.0
    return np.exp(np.fft.rfft(cepstrum, axis=1).real)
