"""Encode frames and a WAV into an MP4 (H.264 + AAC) with the ffmpeg that imageio-ffmpeg bundles."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from empathygraph.generators.base import GeneratorError
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarDirectives

# imageio-ffmpeg starts ffmpeg with ``preexec_fn=os.setpgrp`` (to keep Ctrl-C away from it), which runs Python in the
# forked child before exec. In a process with other threads (a server's turns, the voice's, torch's) the child can
# hang on a lock another thread held at the fork, and the turn's video then never ends: a served turn in CI waited
# 10 minutes in ``subprocess._execute_child`` (imageio-ffmpeg issue #58 names the hang). Its own switch starts ffmpeg
# without it; set once, when this module is imported, and left as it is where someone set it.
NO_PREEXEC = "IMAGEIO_FFMPEG_NO_PREVENT_SIGINT"
os.environ.setdefault(NO_PREEXEC, "1")


def ffmpeg_exe() -> str:
    """Return the bundled ffmpeg binary (no system ffmpeg needed)."""
    try:
        import imageio_ffmpeg
    except ImportError as exc:
        raise GeneratorError("video: imageio-ffmpeg is not installed: pip install imageio-ffmpeg") from exc
    return imageio_ffmpeg.get_ffmpeg_exe()


def encode_mp4(
    frames: Iterable[np.ndarray],
    out_path: Path,
    size: tuple[int, int],
    fps: int,
    audio_path: Path | None,
    crf: int = 23,
    preset: str = "veryfast",
) -> int:
    """Stream RGB uint8 frames (h, w, 3) to ``out_path`` with the audio muxed in; return the frame count."""
    import imageio_ffmpeg

    writer = imageio_ffmpeg.write_frames(
        str(out_path),
        size,
        fps=fps,
        codec="libx264",
        pix_fmt_in="rgb24",
        pix_fmt_out="yuv420p",
        quality=None,
        macro_block_size=16,
        ffmpeg_log_level="error",
        output_params=["-crf", str(crf), "-preset", preset, "-movflags", "+faststart"],
        audio_path=str(audio_path) if audio_path else None,
        audio_codec="aac" if audio_path else None,
    )
    writer.send(None)
    count = 0
    try:
        for frame in frames:
            writer.send(np.ascontiguousarray(frame))
            count += 1
    finally:
        writer.close()
    return count


def read_frames(path: Path, size: tuple[int, int] | None = None) -> Iterable[np.ndarray]:
    """Yield a video's frames as RGB uint8 arrays (optionally resized by ffmpeg)."""
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path), output_params=["-s", f"{size[0]}x{size[1]}"] if size else None)
    meta = next(reader)
    width, height = size or meta["size"]
    for raw in reader:
        yield np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 3)


def probe(path: Path) -> dict[str, object]:
    """Return codec names, fps and durations of an MP4's streams (parsed from ffmpeg's banner)."""
    import re
    import subprocess

    result = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(path)], check=False, capture_output=True,
                            text=True)
    text = result.stderr
    info: dict[str, object] = {}
    if match := re.search(r"Duration: (\d+):(\d+):([\d.]+)", text):
        h, m, s = match.groups()
        info["duration"] = int(h) * 3600 + int(m) * 60 + float(s)
    if match := re.search(r"Video: (\w+).*?, (\d+)x(\d+).*?, ([\d.]+) fps", text):
        info["video_codec"], info["width"], info["height"], info["fps"] = (
            match.group(1), int(match.group(2)), int(match.group(3)), float(match.group(4)),
        )  # fmt: skip
    if match := re.search(r"Audio: (\w+)", text):
        info["audio_codec"] = match.group(1)
    return info


def write_avatar_video(
    frames: Iterable[np.ndarray],
    out_path: Path,
    audio_path: Path | None,
    config: GeneratorsConfig,
    mouth_source: str,
    directives: AvatarDirectives,
) -> dict[str, object]:
    """Encode an avatar's square frames at the configured size, rate and quality; the settings for the trace."""
    size = config.size
    count = encode_mp4(frames, out_path, (size, size), config.fps, audio_path, config.video_crf, config.video_preset)
    return {
        "size": size,
        "fps": config.fps,
        "frames": count,
        "mouth_from": mouth_source,
        "expression": directives.expression.value,
        "intensity": directives.intensity,
    }
