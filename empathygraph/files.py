"""Write files so that a crash never leaves a half-written one under its final name.

A file is written under a hidden partial name beside its final one (same suffix, so a
muxer such as ffmpeg still knows the format), flushed to disk, then renamed over the final
name in one step (``os.replace`` is atomic on one file system). A process killed mid-write
leaves only ``.NAME.partial.SUFFIX``, which nothing presents as complete.

A leaf module (it imports nothing of the package), so every part may use it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PARTIAL = ".partial"


def partial_path(path: Path) -> Path:
    """The hidden name ``path`` is written under until it is complete (``.reply.partial.wav``)."""
    path = Path(path)
    return path.with_name(f".{path.stem}{PARTIAL}{path.suffix}")


def is_partial(path: Path) -> bool:
    """Whether ``path`` is a file still being written (or left by a crash)."""
    name = Path(path).name
    return name.startswith(".") and PARTIAL in name


def _sync(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def publish(partial: Path, path: Path) -> Path:
    """Make a complete ``partial`` file visible under ``path`` in one step."""
    _sync(partial)
    os.replace(partial, path)
    return path


@contextmanager
def writing(path: Path) -> Iterator[Path]:
    """Yield the partial name to write ``path`` under; publish it when the block ends normally.

    An error in the block removes the partial file and leaves whatever was at ``path`` before.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_path(path)
    partial.unlink(missing_ok=True)  # left by a crash: start over
    try:
        yield partial
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    publish(partial, path)


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with writing(path) as partial:
        partial.write_text(text, encoding="utf-8")
    return Path(path)


def append_text(path: Path, text: str) -> Path:
    """Append ``text`` to ``path`` atomically: the old content plus the new, renamed over it."""
    path = Path(path)
    old = path.read_bytes() if path.is_file() else b""
    with writing(path) as partial:
        partial.write_bytes(old + text.encode("utf-8"))
    return path
