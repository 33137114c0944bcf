"""Shared plans and paths for the generator tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from empathygraph.schemas import AvatarDirectives, AvatarProfile, CoarseEmotion, ResponsePlan, SpeechStyle

SHARED = Path(__file__).resolve().parents[3] / "shared"


def make_plan(text: str = "I hear you. That sounds really hard.", emotion: CoarseEmotion = CoarseEmotion.SADNESS,
              profile: AvatarProfile | None = None) -> ResponsePlan:  # fmt: skip
    return ResponsePlan(
        text=text,
        speech=SpeechStyle(emotion=emotion, rate=1.0, pitch=0.0, energy=0.5),
        avatar=AvatarDirectives(expression=emotion, intensity=0.8),
        profile=profile or AvatarProfile(),
    )


@pytest.fixture
def plan_for():
    """Build a plan: ``plan_for(text, emotion, profile)``."""
    return make_plan


@pytest.fixture
def plan() -> ResponsePlan:
    return make_plan()


@pytest.fixture
def portrait() -> Path:
    photos = sorted((SHARED / "media" / "portraits").glob("*.jpg"))
    if not photos:
        pytest.skip("../shared/media/portraits is not here")
    return photos[0]


def median_f0(audio: np.ndarray, sample_rate: int) -> float:
    """Median F0 (Hz) of speech, read by the prosody tool's pitch tracker at its 16 kHz."""
    from math import gcd

    from scipy.signal import resample_poly

    from empathygraph.tools.prosody import SAMPLE_RATE, pitch_track

    common = gcd(SAMPLE_RATE, sample_rate)
    f0, _ = pitch_track(resample_poly(audio, SAMPLE_RATE // common, sample_rate // common).astype(np.float32))
    return float(np.median(f0[f0 > 0]))
