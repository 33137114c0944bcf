"""Scenario files: a named conversation of one or more user turns, with optional media.

```yaml
name: exam-anxiety
description: a student the night before an exam
profile: {age: young, gender: female, timbre: mid}   # the listener avatar
turns:
  - text: "I have my final tomorrow and I can't stop shaking."
    audio: media/exam.wav        # optional, relative to this file
    image: media/face.png        # optional (or video:)
```
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from empathygraph.config import describe_validation_error, read_yaml_mapping
from empathygraph.errors import InputError, ScenarioError
from empathygraph.schemas import AvatarProfile
from empathygraph.state import TurnInput


class TurnSpec(BaseModel):
    """One turn as written in a scenario file (paths relative to the file)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    audio: str | None = None
    image: str | None = None
    video: str | None = None


class Scenario(BaseModel):
    """A scenario: who listens, and what the person says, turn by turn."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    profile: AvatarProfile | None = None
    turns: list[TurnSpec] = Field(min_length=1)

    def turn_inputs(self, base: Path) -> list[TurnInput]:
        """The turns with media paths resolved and checked to exist."""
        inputs = []
        for index, spec in enumerate(self.turns, start=1):
            paths = {}
            for kind in ("audio", "image", "video"):
                value = getattr(spec, kind)
                if value is None:
                    continue
                path = Path(value).expanduser()
                path = path if path.is_absolute() else base / path
                if not path.is_file():
                    raise ScenarioError(f"turn {index}: {kind} file not found: {path}")
                paths[kind] = path
            try:
                inputs.append(TurnInput(text=spec.text, profile=self.profile if index == 1 else None, **paths))
            except InputError as exc:
                raise ScenarioError(f"turn {index}: {exc}") from None
        return inputs


def load_scenario(path: str | Path) -> tuple[Scenario, list[TurnInput]]:
    """Read and check a scenario file.

    Raises:
        ScenarioError: naming the file and the problem (missing, not YAML, unknown
            key, empty turn, missing media file).
    """
    path = Path(path)
    data = read_yaml_mapping(path, "scenario file", ScenarioError)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(describe_validation_error(exc, str(path), what="scenario key")) from None
    return scenario, scenario.turn_inputs(path.parent)
