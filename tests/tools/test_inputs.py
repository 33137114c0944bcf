"""Bad input gives a typed InputError naming the file and the problem, before any model loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from empathygraph.errors import InputError
from empathygraph.tools import audio_io, media_io

LIMITS = {"max_seconds": 30.0, "max_mb": 5.0, "min_rms_db": -50.0}


def test_stereo_44k_is_downmixed_and_resampled(tmp_path: Path, write_wav) -> None:
    t = np.arange(44_100 * 2) / 44_100
    tone = 0.3 * np.sin(2 * np.pi * 220 * t)
    stereo = np.stack([tone, tone], axis=1).reshape(-1)
    audio = audio_io.load_audio(write_wav(tmp_path / "s.wav", stereo, rate=44_100, channels=2), **LIMITS)
    assert abs(audio.duration_s - 2.0) < 0.05


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("missing.wav", None, "not found"),
        ("empty.wav", b"", "empty"),
        ("garbage.wav", b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(range(200)), "cannot decode"),
        ("notes.txt", b"hello", "unsupported audio format"),
    ],
)
def test_unusable_audio_files(tmp_path: Path, name: str, content: bytes | None, problem: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=problem) as err:
        audio_io.load_audio(path, **LIMITS)
    assert err.value.path == str(path)


def test_truncated_wav_is_refused(tmp_path: Path, write_wav) -> None:
    full = write_wav(tmp_path / "full.wav", 0.3 * np.sin(np.arange(16_000) / 5.0))
    cut = tmp_path / "cut.wav"
    cut.write_bytes(full.read_bytes()[:60])  # header and a handful of samples
    with pytest.raises(InputError, match="empty or shorter|cannot decode"):
        audio_io.load_audio(cut, **LIMITS)


def test_silence_is_refused(tmp_path: Path, write_wav) -> None:
    with pytest.raises(InputError, match="silent"):
        audio_io.load_audio(write_wav(tmp_path / "quiet.wav", np.zeros(16_000)), **LIMITS)


def test_over_long_audio_is_refused_without_decoding_it_all(tmp_path: Path, write_wav) -> None:
    long = write_wav(tmp_path / "long.wav", 0.2 * np.sin(np.arange(16_000 * 40) / 7.0))
    with pytest.raises(InputError, match="over the 30 s limit"):
        audio_io.load_audio(long, **LIMITS)


def test_oversized_file_is_refused(tmp_path: Path, write_wav) -> None:
    path = write_wav(tmp_path / "big.wav", 0.2 * np.sin(np.arange(16_000 * 5) / 7.0))
    with pytest.raises(InputError, match="MB limit"):
        audio_io.load_audio(path, max_seconds=60, max_mb=0.05, min_rms_db=-50)


def test_corrupt_image_and_wrong_suffix(tmp_path: Path) -> None:
    bad = tmp_path / "face.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    with pytest.raises(InputError, match="cannot decode image"):
        media_io.load_image(bad, max_pixels=10**7, max_mb=5)
    gif = tmp_path / "face.gif"
    gif.write_bytes(b"GIF89a")
    with pytest.raises(InputError, match="unsupported image format"):
        media_io.load_image(gif, max_pixels=10**7, max_mb=5)


def test_image_over_resolution_limit(tmp_path: Path) -> None:
    import cv2

    path = tmp_path / "wide.png"
    cv2.imwrite(str(path), np.zeros((100, 300, 3), np.uint8))
    with pytest.raises(InputError, match="pixel limit"):
        media_io.load_image(path, max_pixels=10_000, max_mb=5)


def test_video_without_frames(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64)
    with pytest.raises(InputError, match="no frames|cannot decode|no video stream"):
        media_io.sample_video(path, fps=4, max_frames=10, max_seconds=60, max_mb=5)
