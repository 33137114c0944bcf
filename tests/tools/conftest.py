"""Fixtures for the perception tools: synthetic media made on the fly, the shared folder if present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def write_wav(path: Path, samples: np.ndarray, rate: int = 16_000, channels: int = 1) -> Path:
    """Write float samples in [-1, 1] as 16-bit PCM WAV (interleaved when ``channels`` > 1)."""
    import wave

    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


@pytest.fixture(name="write_wav")
def write_wav_fixture():
    """The ``write_wav`` helper, as a fixture."""
    return write_wav


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is absent")
    return SHARED


@pytest.fixture(scope="session")
def spoken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A sentence spoken by espeak-ng at 22.05 kHz, and its text."""
    if not shutil.which("espeak-ng"):
        pytest.skip("espeak-ng is not installed")
    text = "I missed the last train home and had to walk in the rain."
    path = tmp_path_factory.mktemp("speech") / "spoken.wav"
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(path), text], check=True, capture_output=True)
    return path, text


@pytest.fixture(scope="session")
def toolbox():
    from empathygraph.tools.toolbox import ToolBox

    return ToolBox()
