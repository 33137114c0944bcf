"""Settings of the perception tools (limits on inputs, model choices)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class PerceptionConfig(BaseModel):
    """Which perception tools run and the limits they enforce on inputs."""

    model_config = ConfigDict(extra="forbid")

    text_emotion: bool = True
