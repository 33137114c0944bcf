"""A turn's request: JSON or multipart, its files recognised by their content and checked before decoding.

An upload's kind (audio, image, video) is what the client says; its format is what its
first bytes say (the file keeps that suffix, whatever it was called). Sizes are bounded
before the body is read (``security.BodyLimit``); audio and video length is read from the
container's packets and images' size from their header, so nothing over a limit is ever
decoded.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request

from empathygraph.schemas import AvatarProfile
from empathygraph.serve.config import ServeConfig
from empathygraph.serve.files import SessionFiles
from empathygraph.serve.problems import ApiError
from empathygraph.state import TurnInput

Kind = Literal["audio", "image", "video"]
KINDS: tuple[Kind, ...] = ("audio", "image", "video")
HEAD_BYTES = 16
COPY_CHUNK = 1 << 16


class Upload(BaseModel):
    """A file sent inside a JSON turn."""

    model_config = ConfigDict(extra="forbid")

    data: str = Field(description="the file's bytes, base64")
    filename: str | None = Field(default=None, description="informative only: the format is read from the bytes")


class TurnRequest(BaseModel):
    """A turn sent as JSON (multipart sends the same fields as form fields and files)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, description="what the person typed")
    audio: Upload | None = None
    image: Upload | None = None
    video: Upload | None = None
    profile: AvatarProfile | None = Field(default=None, description="the listener avatar for this session")
    media: bool = Field(default=True, description="speak the reply and render the avatar video")


def sniff(head: bytes) -> tuple[str, frozenset[str]]:
    """The suffix a file's first bytes call for, and which kinds of upload that format can be."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return ".wav", frozenset({"audio"})
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ".webp", frozenset({"image"})
    if head[:3] == b"\xff\xd8\xff":
        return ".jpg", frozenset({"image"})
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return ".png", frozenset({"image"})
    if head[:4] == b"OggS":
        return ".ogg", frozenset({"audio"})
    if head[:4] == b"fLaC":
        return ".flac", frozenset({"audio"})
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return ".mp3", frozenset({"audio"})
    if head[:4] == b"\x1aE\xdf\xa3":  # Matroska / WebM (a browser's MediaRecorder)
        return ".webm", frozenset({"audio", "video"})
    if head[4:8] == b"ftyp":
        return ".mp4", frozenset({"audio", "video"})
    return "", frozenset()


def _recognise(kind: Kind, head: bytes) -> str:
    suffix, kinds = sniff(head)
    if kind not in kinds:
        raise ApiError(415, "unsupported_media", f"{kind}: not a {kind} format this server reads "
                       "(audio: wav, webm, ogg, mp3, m4a, flac; image: jpeg, png, webp; video: webm, mp4)")
    return suffix


def _container_seconds(path: Path, kind: Kind, limit: float) -> float:
    """Length of the first ``kind`` stream, from the container's header or its packets (nothing decoded)."""
    import av

    try:
        with av.open(str(path), metadata_errors="ignore") as container:
            streams = container.streams.audio if kind == "audio" else container.streams.video
            if not streams:
                raise ApiError(422, "bad_media", f"{kind}: the file has no {kind} stream")
            stream = streams[0]
            if stream.duration and stream.time_base:
                declared = float(stream.duration * stream.time_base)
            else:
                declared = container.duration / 1e6 if container.duration else 0.0
            if declared > limit:
                return declared
            end, packets = 0.0, 0
            for packet in container.demux(stream):  # a live recording (WebM) often declares no length
                if packet.pts is None or packet.time_base is None:
                    continue
                packets += 1
                end = max(end, float((packet.pts + (packet.duration or 0)) * packet.time_base))
                if end > limit:
                    break
            if packets == 0:
                raise ApiError(422, "bad_media", f"{kind}: the file holds no {kind} (empty or truncated?)")
            return max(end, declared)
    except ApiError:
        raise
    except (av.error.FFmpegError, ValueError, IndexError) as exc:
        raise ApiError(422, "bad_media", f"{kind}: cannot read the file (corrupt or truncated?): {exc}") from None


def _image_pixels(path: Path) -> int:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:  # reads the header only
            width, height = image.size
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ApiError(422, "bad_media", f"image: cannot read the file (corrupt or truncated?): {exc}") from None
    return width * height


def check_media(path: Path, kind: Kind, limits: ServeConfig) -> None:
    """Refuse media over the length or size limits, or that is unreadable, without decoding it."""
    if kind == "image":
        pixels = _image_pixels(path)
        if pixels > limits.max_image_pixels:
            raise ApiError(413, "too_large", f"image: {pixels} pixels, over the {limits.max_image_pixels} limit "
                           "(serve.max_image_pixels)")
        return
    seconds = _container_seconds(path, kind, limits.max_media_seconds)
    if seconds > limits.max_media_seconds:
        raise ApiError(413, "too_long", f"{kind}: {seconds:.0f} s long, over the {limits.max_media_seconds:.0f} s "
                       "limit (serve.max_media_seconds)")


class TurnReader:
    """Read a turn request into a ``TurnInput`` whose files lie in the session's uploads folder."""

    def __init__(self, files: SessionFiles, limits: ServeConfig) -> None:
        self.files = files
        self.limits = limits

    async def read(self, request: Request, session_id: str) -> tuple[TurnInput, bool]:
        """The turn and whether to render media; 4xx ``ApiError`` for anything unusable."""
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "application/json":
            fields, saved = await self._from_json(request, session_id)
        elif content_type == "multipart/form-data":
            fields, saved = await self._from_form(request, session_id)
        else:
            raise ApiError(415, "unsupported_media_type", "send the turn as application/json or multipart/form-data")
        for kind, path in saved.items():
            await run_in_threadpool(check_media, path, kind, self.limits)
        text = (fields.text or "").strip() or None
        if text is not None and len(text) > self.limits.max_text_chars:
            raise ApiError(413, "too_long", f"text: {len(text)} characters, over the {self.limits.max_text_chars} "
                           "limit (serve.max_text_chars)")
        if text is None and not saved:
            raise ApiError(422, "empty_turn", "empty turn: give text, audio, an image or a video")
        if "image" in saved and "video" in saved:
            raise ApiError(422, "invalid", "send an image or a video, not both")
        return TurnInput(text=text, profile=fields.profile, **saved), fields.media

    async def _from_json(self, request: Request, session_id: str) -> tuple[TurnRequest, dict[Kind, Path]]:
        try:
            fields = TurnRequest.model_validate(json.loads(await request.body()))
        except json.JSONDecodeError as exc:
            raise ApiError(400, "bad_json", f"the body is not JSON: {exc}") from None
        except ValidationError as exc:
            raise ApiError(422, "invalid", _explain(exc)) from None
        saved: dict[Kind, Path] = {}
        for kind in KINDS:
            upload: Upload | None = getattr(fields, kind)
            if upload is None:
                continue
            try:
                data = base64.b64decode(upload.data, validate=True)
            except (binascii.Error, ValueError):
                raise ApiError(422, "bad_media", f"{kind}: 'data' is not base64") from None
            path = self.files.upload_path(session_id, kind, _recognise(kind, data[:HEAD_BYTES]))
            path.write_bytes(data)
            saved[kind] = path
        return fields, saved

    async def _from_form(self, request: Request, session_id: str) -> tuple[TurnRequest, dict[Kind, Path]]:
        form = await request.form(max_files=len(KINDS), max_fields=8)
        saved: dict[Kind, Path] = {}
        values: dict[str, object] = {}
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                if name not in KINDS:
                    raise ApiError(422, "invalid", f"unknown file field {name!r} (audio, image or video)")
                saved[name] = await self._save(value, name, session_id)  # type: ignore[index]
            elif name == "profile":
                try:
                    values[name] = json.loads(value)
                except json.JSONDecodeError:
                    raise ApiError(422, "invalid", "profile: not JSON") from None
            elif name in ("text", "media"):
                values[name] = value
            else:
                raise ApiError(422, "invalid", f"unknown field {name!r} (text, profile, media, audio, image, video)")
        try:
            return TurnRequest.model_validate(values), saved
        except ValidationError as exc:
            raise ApiError(422, "invalid", _explain(exc)) from None

    async def _save(self, upload: UploadFile, kind: Kind, session_id: str) -> Path:
        head = await upload.read(HEAD_BYTES)
        path = self.files.upload_path(session_id, kind, _recognise(kind, head))
        with path.open("wb") as out:
            out.write(head)
            while chunk := await upload.read(COPY_CHUNK):
                out.write(chunk)
        return path


def _explain(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in exc.errors())
