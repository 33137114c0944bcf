"""Settings of the media generators (speech and avatar video)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GeneratorsConfig(BaseModel):
    """Which speech and avatar backends render the reply."""

    model_config = ConfigDict(extra="forbid")

    speech: str | None = None
    avatar: str | None = None
