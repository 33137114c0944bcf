"""Scenario files: a named conversation of one or more user turns, with optional media.

```yaml
name: exam-anxiety
description: a student the night before an exam
profile: {age: young, gender: female, timbre: mid}   # the listener avatar
portrait: media/listener.jpg   # optional: the photo the portrait avatar animates (default: a packaged person)
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
from empathygraph.session import check_turn
from empathygraph.state import TurnInput
from empathygraph.tools.config import PerceptionConfig


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
    portrait: str | None = None
    turns: list[TurnSpec] = Field(min_length=1)

    def portrait_path(self, base: Path) -> Path | None:
        """The listener's portrait photo inside the scenario's folder (None: the profile's packaged person)."""
        return None if self.portrait is None else _inside(base.resolve(), self.portrait, "portrait")

    def turn_inputs(self, base: Path) -> list[TurnInput]:
        """The turns with media paths resolved, checked to exist and to lie inside ``base``.

        A scenario names its media relative to its own folder; a path that leads out of it
        (``../``, an absolute path, a link) is refused, so a shared scenario file cannot make
        the listener read, and write into its trace, a file elsewhere on the machine.
        """
        inputs = []
        root = base.resolve()
        for index, spec in enumerate(self.turns, start=1):
            paths = {}
            for kind in ("audio", "image", "video"):
                value = getattr(spec, kind)
                if value is None:
                    continue
                paths[kind] = _inside(root, value, f"turn {index}: {kind}")
            try:
                inputs.append(TurnInput(text=spec.text, profile=self.profile if index == 1 else None, **paths))
            except InputError as exc:
                raise ScenarioError(f"turn {index}: {exc}") from None
        return inputs


def _inside(root: Path, value: str, what: str) -> Path:
    """A file named relative to the scenario's folder ``root``, refused if missing or outside it."""
    path = (root / value).resolve()
    if not path.is_relative_to(root):
        raise ScenarioError(f"{what} '{value}' is outside the scenario's folder {root}")
    if not path.is_file():
        raise ScenarioError(f"{what} file not found: {path}")
    return path


def load_scenario(path: str | Path, limits: PerceptionConfig | None = None) -> tuple[Scenario, list[TurnInput]]:
    """Read and check a scenario file (and, given ``limits``, each turn against them).

    Raises:
        ScenarioError: naming the file and the problem (missing, too large, not YAML, an
            alias bomb, unknown key, wrong type, empty turn, missing media file, media outside
            the scenario's folder).
    """
    path = Path(path)
    data = read_yaml_mapping(path, "scenario file", ScenarioError)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(describe_validation_error(exc, str(path), what="scenario key")) from None
    try:
        turns = scenario.turn_inputs(path.parent)
        for index, turn in enumerate(turns, start=1):
            try:
                check_turn(turn, limits or PerceptionConfig())
            except InputError as exc:
                raise ScenarioError(f"turn {index}: {exc}") from None
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    return scenario, turns
