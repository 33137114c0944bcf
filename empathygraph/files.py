"""Write files so that a crash never leaves a half-written one under its final name.

A file is written under a hidden partial name beside its final one (same suffix, so a
muxer such as ffmpeg still knows the format), flushed to disk, then renamed over the final
name in one step (``os.replace`` is atomic on one file system). A process killed mid-write
leaves only ``.NAME.partial.SUFFIX``, which nothing presents as complete.

Names that come from outside (a session id, a scenario's name) become safe file names
(``safe_name``), and a path built under a chosen folder must stay in it (``inside``).

A leaf module (it imports only ``errors``), so every part may use it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from empathygraph.errors import OutputError

PARTIAL = ".partial"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 80


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


def safe_name(text: str, fallback: str = "unnamed") -> str:
    """``text`` as one file or folder name: letters, digits, ``.``, ``_`` and ``-`` only, no leading dot
    or dash, at most ``MAX_NAME`` characters (``../../etc`` -> ``etc``); ``fallback`` when nothing is left."""
    return _UNSAFE.sub("-", text).strip(".-")[:MAX_NAME].strip(".-") or fallback


def inside(root: Path, *parts: str | Path) -> Path:
    """``root`` joined with ``parts``, refused when it leads out of ``root`` (``..``, an absolute part, a link).

    Raises:
        OutputError: naming the path and the folder it had to stay in.
    """
    path = Path(root).joinpath(*parts)
    if not path.resolve().is_relative_to(Path(root).resolve()):
        raise OutputError(f"{path}: outside the output folder {root}")
    return path
