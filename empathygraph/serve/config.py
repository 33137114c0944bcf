"""Settings of ``empathygraph serve`` (the ``serve`` section of a run configuration).

A leaf beside its package: it imports no web framework, so the configuration loads
without one.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from empathygraph.paths import default_home


class ServeConfig(BaseModel):
    """How the HTTP server answers: who may call it, what it accepts, how many turns at once."""

    model_config = ConfigDict(extra="forbid")

    token: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9._~+/=-]{8,}$",
        description="bearer token every route but /healthz asks for: 8 or more letters, digits or ._~+/=- "
        "(env EMPATHYGRAPH_SERVE__TOKEN)")
    media_dir: Path | None = Field(
        default=None, description="sessions' uploads and rendered media (default <home>/serve); replicas share it")
    cors_origins: list[str] = Field(default_factory=list, description="browser origins allowed to call the API")
    max_upload_mb: float = Field(default=25.0, gt=0, description="largest request body, checked before it is read")
    max_media_seconds: float = Field(default=60.0, gt=0, description="longest audio or video, read from the container")
    max_image_pixels: int = Field(default=40_000_000, gt=0, description="largest image, read from its header")
    max_text_chars: int = Field(default=4000, gt=0, description="longest typed message")
    concurrency: int | None = Field(
        default=None, ge=1,
        description="turns answered at once; default 1 on the embedded backbone (one model answers one turn at a "
        "time), 8 on a server backbone")
    max_queue: int = Field(default=32, ge=0, description="turns that may wait for their turn; more are refused (429)")
    warm_up: bool = Field(default=True, description="load every model and answer one private turn before ready")

    def media_root(self) -> Path:
        """The folder that holds every session's files."""
        return (self.media_dir or default_home() / "serve").expanduser()
