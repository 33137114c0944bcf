"""Each session's own folder: its uploads and its turns' media, and nothing outside it is served.

    <media root>/sessions/<session id>/uploads/<file>     what the person sent
    <media root>/sessions/<session id>/turn-<n>/<file>    what the listener rendered for turn n
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

from empathygraph.serve.problems import ApiError

SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
FILE_PART = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")


def check_session_id(session_id: str) -> str:
    """``session_id`` if it is a valid id (it names a folder), else a 422 error."""
    if not SESSION_ID.match(session_id):
        raise ApiError(422, "bad_session_id",
                       f"session id {session_id[:80]!r} must be 1 to 64 letters, digits, '-' or '_'")
    return session_id


class SessionFiles:
    """The folders of every session under one root (shared by replicas when it is a shared volume)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def session_dir(self, session_id: str) -> Path:
        return self.root / "sessions" / check_session_id(session_id)

    def turn_dir(self, session_id: str, turn_index: int) -> Path:
        return self.session_dir(session_id) / f"turn-{turn_index}"

    def traces(self, session_id: str) -> list[Path]:
        """The session's finished turns' traces (``turn-N/trace.jsonl``), oldest turn first."""
        found = [path for path in self.session_dir(session_id).glob("turn-*/trace.jsonl")
                 if path.parent.name.removeprefix("turn-").isdigit()]
        return sorted(found, key=lambda path: int(path.parent.name.removeprefix("turn-")))

    def upload_path(self, session_id: str, kind: str, suffix: str) -> Path:
        """A new file for an upload of ``kind`` (``suffix`` as the content was recognised, not as named)."""
        folder = self.session_dir(session_id) / "uploads"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{uuid.uuid4().hex[:16]}-{kind}{suffix}"

    def url(self, session_id: str, path: Path | str) -> str | None:
        """The URL that serves ``path``, or None when it lies outside the session's folder."""
        folder = self.session_dir(session_id).resolve()
        try:
            relative = Path(path).resolve().relative_to(folder)
        except ValueError:
            return None
        return f"/v1/sessions/{session_id}/media/{relative.as_posix()}"

    def public(self, session_id: str, value: Any) -> Any:
        """``value`` (JSON-like) with every path of a file under the media root shown as its URL (or hidden).

        Step outputs name the files a turn read and wrote; a client needs their URLs, not where
        they lie on the server.
        """
        if isinstance(value, dict):
            return {key: self.public(session_id, item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.public(session_id, item) for item in value]
        if isinstance(value, str) and value.startswith(str(self.root) + "/"):
            return self.url(session_id, value) or "(a file of another session)"
        return value

    def resolve(self, session_id: str, relative: str) -> Path:
        """The file ``relative`` names inside the session's folder; 404 for anything else.

        Each part must be a plain name (no ``..``, no leading dot, no separators or odd
        characters), and the file, links resolved, must still lie inside the folder.
        """
        parts = relative.split("/")
        not_found = ApiError(404, "unknown_media", f"no media {relative[:120]!r} in session {session_id}")
        if not parts or not all(FILE_PART.match(part) for part in parts):
            raise not_found
        folder = self.session_dir(session_id).resolve()
        path = folder.joinpath(*parts).resolve()
        if not path.is_relative_to(folder) or not path.is_file():
            raise not_found
        return path
