"""Prosody: pitch, loudness, speaking rate and pauses, and how they read in words.

Everything here is signal processing on 16 kHz mono samples plus the ASR word timings;
no model is loaded, so it costs a few milliseconds per second of audio.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import asdict, dataclass

import numpy as np

from empathygraph.tools.asr import Word
from empathygraph.tools.audio_io import SAMPLE_RATE

_FRAME = 640  # 40 ms: two periods of a 50 Hz voice
_HOP = 160  # 10 ms
_F0_MIN, _F0_MAX = 60.0, 400.0
_PAUSE_S = 0.3  # a gap between words longer than this is a pause
_LONG_PAUSE_S = 0.8
_FILLERS = re.compile(r"^(?:um+|uh+|er+m?|hmm+|mm+|ah+|eh+|like)$", re.IGNORECASE)

# Typical conversational values (adult read and spontaneous speech); the description and the
# arousal estimate are both relative to these.
NORMS = {"rate_wps": 2.6, "pitch_hz": 165.0, "pitch_range_st": 6.0, "loudness_db": -24.0, "voiced_ratio": 0.5}


@dataclass(frozen=True)
class Prosody:
    """Measured prosodic features of one utterance."""

    pitch_hz: float  # median F0 over voiced frames (0 when nothing is voiced)
    pitch_range_st: float  # 10th–90th percentile F0 span, in semitones
    loudness_db: float  # mean level of the active frames, dBFS
    loudness_var_db: float  # standard deviation of the active frames' level
    voiced_ratio: float
    rate_wps: float  # words per second from the first word's start to the last word's end (0 without words)
    pauses: int
    long_pauses: int
    pause_ratio: float  # share of the speaking span spent in pauses
    hesitations: int  # filler words (um, uh, …)

    def as_features(self) -> dict[str, float]:
        """Return the features as a flat name → number mapping (for the trace)."""
        return {k: round(float(v), 3) for k, v in asdict(self).items()}


def _frames(samples: np.ndarray) -> np.ndarray:
    if len(samples) < _FRAME:
        samples = np.pad(samples, (0, _FRAME - len(samples)))
    count = 1 + (len(samples) - _FRAME) // _HOP
    idx = np.arange(_FRAME)[None, :] + _HOP * np.arange(count)[:, None]
    return samples[idx]


def pitch_track(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Estimate F0 per 10 ms frame by normalised autocorrelation.

    Returns:
        (f0 in Hz with 0 for unvoiced frames, frame level in dBFS)
    """
    frames = _frames(samples.astype(np.float32))
    frames = frames - frames.mean(axis=1, keepdims=True)
    level_db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-10)
    windowed = frames * np.hanning(_FRAME)[None, :]
    spec = np.fft.rfft(windowed, n=2 * _FRAME, axis=1)
    ac = np.fft.irfft(np.abs(spec) ** 2, axis=1)[:, :_FRAME]
    ac = ac / (ac[:, :1] + 1e-10)
    lo, hi = int(SAMPLE_RATE / _F0_MAX), int(SAMPLE_RATE / _F0_MIN)
    region = ac[:, lo:hi]
    best = region.max(axis=1)
    # The shortest lag whose peak is nearly as strong as the best one: autocorrelation also
    # peaks at two and three periods, which would put the pitch an octave too low.
    local_peak = (region[:, 1:-1] >= region[:, :-2]) & (region[:, 1:-1] >= region[:, 2:])
    good = local_peak & (region[:, 1:-1] >= 0.85 * best[:, None])
    lag = np.where(good.any(axis=1), np.argmax(good, axis=1) + 1, np.argmax(region, axis=1)) + lo
    active = level_db > (np.percentile(level_db, 95) - 35)
    voiced = (best > 0.45) & active & good.any(axis=1)
    f0 = np.where(voiced, SAMPLE_RATE / lag, 0.0)
    f0 = _median_smooth(f0)
    return f0, level_db


def _median_smooth(f0: np.ndarray, width: int = 5) -> np.ndarray:
    """Median-filter voiced F0 values over ``width`` frames to remove single-frame jumps."""
    out = f0.copy()
    half = width // 2
    for i in np.flatnonzero(f0):
        window = f0[max(0, i - half) : i + half + 1]
        out[i] = np.median(window[window > 0])
    return out


def _pauses(words: list[Word]) -> tuple[list[float], float]:
    gaps = [b.start - a.end for a, b in itertools.pairwise(words)]
    span = words[-1].end - words[0].start if words else 0.0
    return [g for g in gaps if g > _PAUSE_S], span


def measure(samples: np.ndarray, words: list[Word]) -> Prosody:
    """Measure the prosody of ``samples`` given the ASR ``words`` (may be empty)."""
    f0, level_db = pitch_track(samples)
    voiced = f0[f0 > 0]
    active = level_db[level_db > (np.percentile(level_db, 95) - 35)]
    if len(voiced) >= 5:
        # Frames more than an octave from the median are octave errors, not intonation.
        median = np.median(voiced)
        voiced = voiced[(voiced > median / 2) & (voiced < median * 2)]
        p10, p50, p90 = np.percentile(voiced, [10, 50, 90])
        pitch_hz, pitch_range = float(p50), float(12 * math.log2(p90 / p10))
    else:
        pitch_hz, pitch_range = 0.0, 0.0
    pauses, span = _pauses(words)
    return Prosody(
        pitch_hz=pitch_hz,
        pitch_range_st=pitch_range,
        loudness_db=float(np.mean(active)) if len(active) else -100.0,
        loudness_var_db=float(np.std(active)) if len(active) else 0.0,
        voiced_ratio=float(len(voiced) / max(len(f0), 1)),
        rate_wps=len(words) / max(span, 0.25) if words else 0.0,
        pauses=len(pauses),
        long_pauses=sum(g > _LONG_PAUSE_S for g in pauses),
        pause_ratio=float(sum(pauses) / span) if span > 0 else 0.0,
        hesitations=sum(bool(_FILLERS.match(w.text.strip(".,!?…").lower())) for w in words),
    )


def _semitones(hz: float, ref: float) -> float:
    return 12 * math.log2(hz / ref) if hz > 0 else 0.0


def arousal(p: Prosody) -> float:
    """Estimate vocal arousal in [-1, 1].

    Aroused speech is higher and more varied in pitch, faster, more continuously voiced and
    louder (Juslin & Laukka 2003); each cue is a z-like score around conversational norms.
    """
    z = (
        0.35 * _semitones(p.pitch_hz, NORMS["pitch_hz"]) / 4.0
        + 0.2 * (p.pitch_range_st - NORMS["pitch_range_st"]) / 3.0
        + (0.25 * (p.rate_wps - NORMS["rate_wps"]) / 0.8 if p.rate_wps else 0.0)
        + 0.2 * (p.voiced_ratio - NORMS["voiced_ratio"]) / 0.1
        + 0.1 * (p.loudness_db - NORMS["loudness_db"]) / 6.0
    )
    return float(np.tanh(z))


def describe(p: Prosody) -> str:
    """Put the prosody in a few words for the LLM, e.g. 'speaks slowly and quietly, with long pauses'."""
    manner: list[str] = []
    if p.rate_wps:
        if p.rate_wps < NORMS["rate_wps"] * 0.7:
            manner.append("slowly")
        elif p.rate_wps > NORMS["rate_wps"] * 1.3:
            manner.append("fast")
    if p.loudness_db < NORMS["loudness_db"] - 8:
        manner.append("quietly")
    elif p.loudness_db > NORMS["loudness_db"] + 8:
        manner.append("loudly")
    head = "speaks " + " and ".join(manner) if manner else "speaks at an even pace and volume"
    tone: list[str] = []
    if p.pitch_hz:
        if p.pitch_range_st < 3.0:
            tone.append("in a flat, monotone voice")
        elif p.pitch_range_st > 10.0:
            tone.append("with a lively, varied pitch")
    if p.long_pauses:
        tone.append("with long pauses")
    elif p.pauses >= 2:
        tone.append("with some pauses")
    if p.hesitations:
        tone.append(f"hesitating ({p.hesitations} filler word{'s' if p.hesitations > 1 else ''})")
    return ", ".join([head, *tone])
