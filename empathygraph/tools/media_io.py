"""Load an image, or frames sampled from a video, refusing bad input early."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import InputError
from empathygraph.tools.audio_io import check_file

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp"})
VIDEO_SUFFIXES = frozenset({".mp4", ".mov", ".mkv", ".webm", ".avi", ".m4v"})


@dataclass(frozen=True)
class Frame:
    """One BGR frame and when it was shown (seconds from the start; 0 for an image)."""

    image: np.ndarray
    time_s: float


def is_video(path: Path) -> bool:
    """Tell a video from an image by its suffix."""
    return Path(path).suffix.lower() in VIDEO_SUFFIXES


def load_image(path: Path, *, max_pixels: int, max_mb: float) -> Frame:
    """Read an image as one BGR frame."""
    import cv2

    check_file(path, suffixes=IMAGE_SUFFIXES, max_mb=max_mb, kind="image")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise InputError("cannot decode image (corrupt or truncated?)", path)
    h, w = image.shape[:2]
    if h * w > max_pixels:
        raise InputError(f"image is {w}×{h}, over the {max_pixels} pixel limit", path)
    return Frame(image, 0.0)


def sample_video(path: Path, *, fps: float, max_frames: int, max_seconds: float, max_mb: float) -> list[Frame]:
    """Decode frames from ``path`` at about ``fps`` frames per second (at most ``max_frames``).

    Raises:
        InputError: unreadable, over-long, or without a single frame.
    """
    import av

    check_file(path, suffixes=VIDEO_SUFFIXES, max_mb=max_mb, kind="video")
    frames: list[Frame] = []
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise InputError("has no video stream", path)
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            duration = container.duration / 1e6 if container.duration else None
            if duration is not None and duration > max_seconds:
                raise InputError(f"video is {duration:.0f} s long, over the {max_seconds:.0f} s limit", path)
            next_t = 0.0
            for frame in container.decode(stream):
                t = float(frame.time) if frame.time is not None else len(frames) / fps
                if t > max_seconds:
                    raise InputError(f"video is over the {max_seconds:.0f} s limit", path)
                if t + 1e-6 < next_t:
                    continue
                frames.append(Frame(frame.to_ndarray(format="bgr24"), t))
                next_t = t + 1.0 / fps
                if len(frames) >= max_frames:
                    break
    except InputError:
        raise
    except (av.error.FFmpegError, ValueError) as exc:
        raise InputError(f"cannot decode video (corrupt or truncated?): {exc}", path) from exc
    if not frames:
        raise InputError("video has no frames", path)
    return frames
