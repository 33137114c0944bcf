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


def image_size(path: Path, max_pixels: int) -> tuple[int, int]:
    """(width, height) as the image's header declares them, read without decoding its pixels.

    Raises:
        InputError: the file is not an image Pillow can identify, or declares a decompression bomb.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            return image.size
    except Image.DecompressionBombError:  # Pillow's own ceiling, far above ours
        raise InputError(f"image header declares over {2 * Image.MAX_IMAGE_PIXELS} pixels, over the {max_pixels} "
                         "pixel limit (a decompression bomb?)", path) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise InputError(f"cannot decode image (corrupt or truncated?): {type(exc).__name__}: {exc}", path) from None


def check_pixels(path: Path, width: int, height: int, max_pixels: int, kind: str) -> None:
    """Refuse a picture whose declared size is empty or over ``max_pixels``, before it is decoded."""
    if width <= 0 or height <= 0:
        raise InputError(f"{kind} declares a size of {width}×{height} pixels", path)
    if width * height > max_pixels:
        raise InputError(f"{kind} is {width}×{height}, over the {max_pixels} pixel limit", path)


def load_image(path: Path, *, max_pixels: int, max_mb: float) -> Frame:
    """Read an image as one BGR frame; its declared size is checked before it is decoded."""
    import cv2

    check_file(path, suffixes=IMAGE_SUFFIXES, max_mb=max_mb, kind="image")
    check_pixels(path, *image_size(path, max_pixels), max_pixels, "image")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise InputError("cannot decode image (corrupt or truncated?)", path)
    h, w = image.shape[:2]
    check_pixels(path, w, h, max_pixels, "image")  # the pixels, not just the header
    return Frame(image, 0.0)


def sample_video(path: Path, *, fps: float, max_frames: int, max_seconds: float, max_mb: float,
                 max_pixels: int = 4096 * 4096) -> list[Frame]:
    """Decode frames from ``path`` at about ``fps`` frames per second (at most ``max_frames``).

    The declared duration and frame size are checked before a frame is decoded.

    Raises:
        InputError: unreadable, over-long, over-large, or without a single frame.
    """
    import av

    check_file(path, suffixes=VIDEO_SUFFIXES, max_mb=max_mb, kind="video")
    frames: list[Frame] = []
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise InputError("has no video stream", path)
            stream = container.streams.video[0]
            codec = stream.codec_context
            if codec is None:  # a moov cut before the stream's sample description
                raise InputError("video stream has no codec description (corrupt or truncated?)", path)
            stream.thread_type = "AUTO"
            check_pixels(path, codec.width, codec.height, max_pixels, "video")
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
                check_pixels(path, frame.width, frame.height, max_pixels, "video frame")
                frames.append(Frame(frame.to_ndarray(format="bgr24"), t))
                next_t = t + 1.0 / fps
                if len(frames) >= max_frames:
                    break
    except InputError:
        raise
    except (av.error.FFmpegError, ValueError, IndexError, OverflowError, ZeroDivisionError, OSError) as exc:
        raise InputError(f"cannot decode video (corrupt or truncated?): {exc}", path) from exc
    if not frames:
        raise InputError("video has no frames", path)
    return frames
