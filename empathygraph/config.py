"""Run configuration: YAML file, then environment, then command-line overrides.

Each package keeps its own section beside its code (``backbones/config.py``,
``agents/config.py``, ``tools/config.py``, ``generators/config.py``); this module
composes them with the sections that span the run (safety route, session store).

Every section forbids unknown keys, so a typo is an error that names the key.
Environment overrides look like ``EMPATHYGRAPH_BACKBONE__BASE_URL=http://...``;
command-line overrides like ``--set backbone.model=fast``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from empathygraph.agents.config import AgentsConfig
from empathygraph.backbones.config import BackboneConfig
from empathygraph.errors import ConfigError
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.paths import default_home
from empathygraph.schemas import AvatarProfile, RiskCategory
from empathygraph.serve.config import ServeConfig
from empathygraph.tools.config import PerceptionConfig

ENV_PREFIX = "EMPATHYGRAPH_"


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


DEFAULT_RESOURCES = [
    "If you are in immediate danger, call your local emergency number (911 in the US, 112 in Europe, 999 in the UK).",
    "In the US you can call or text 988 (Suicide & Crisis Lifeline); in the UK and Ireland call Samaritans on 116 123.",
    "Elsewhere, findahelpline.com lists free, confidential helplines by country.",
]


DEFAULT_RESOURCES_BY_CATEGORY: dict[RiskCategory, list[str]] = {
    RiskCategory.ABUSE: [
        ("Domestic abuse helplines are free and confidential: 1-800-799-7233 in the US (or text START to 88788), "
        "0808 2000 247 in the UK."),
    ],
}


class SafetyConfig(Section):
    """The risk assessment and the crisis route."""

    enabled: bool = True
    resources: list[str] = Field(default_factory=lambda: list(DEFAULT_RESOURCES),
                                 description="helplines every crisis reply lists")
    resources_by_category: dict[RiskCategory, list[str]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_RESOURCES_BY_CATEGORY.items()},
        description="helplines added when that category is found",
    )
    classifier: bool = Field(default=True, description="weigh the trained risk classifier beside the phrase patterns")
    probe: bool = Field(default=True, description="average the risk probe over the embedded backbone's hidden states "
                        "into the classifier's score (only the backbone it was trained on has one)")
    context_turns: int = Field(default=3, ge=0, le=10,
                               description="earlier user turns the classifier also reads together with this one")
    llm_read: Literal["gray", "always", "off"] = Field(
        default="off", description="ask the LLM's own yes/no reading: only when the classifier is unsure (gray), "
        "on every turn, or never (the default: on the default 1.5B model, read in the probe's gray band, it "
        "caught 3 more of 411 held-out disclosures and raised 73 more false alarms of 481)")
    llm_threshold: float = Field(default=0.5, ge=0.0, le=1.0, description="P(yes) at which the LLM reading fires")
    acknowledgment: Literal["llm", "fixed"] = Field(
        default="fixed", description="crisis reply's first sentence: fixed per category, or written by the LLM and "
        "checked (the default 1.5B model's stood 1 of 10 times and doubled the crisis turn's time: for a stronger backbone)")

    def resources_for(self, categories: Sequence[RiskCategory]) -> list[str]:
        """The helplines for a reply: every category's own, then the general ones, each once."""
        found = [r for c in categories for r in self.resources_by_category.get(c, [])]
        return list(dict.fromkeys([*found, *self.resources]))


class TraceConfig(Section):
    """What a run writes down about a turn."""

    redact: bool = Field(
        default=False, description="keep the person's words and media out of traces, results and reports: "
        "free text becomes keyed hashes, labels and numbers stay (the session store still holds the conversation)")


class SessionsConfig(Section):
    """Where conversations persist between runs."""

    db: str | None = Field(
        default=None,
        description="SQLite file (default: <home>/sessions.sqlite); ':memory:' keeps nothing; "
        "postgresql://user@host:port/db shares sessions between processes and machines",
    )
    checkpoints: Literal["step", "turn"] = Field(
        default="step", description="step: save after every step, so a turn cut short, even by a killed process, "
        "resumes from its last finished step (about 6 ms of CPU a turn); turn: save when a turn ends or fails "
        "(a killed process loses the turn it was in)")


class Config(Section):
    """A whole run configuration."""

    backbone: BackboneConfig = Field(default_factory=BackboneConfig)
    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    sessions: SessionsConfig = Field(default_factory=SessionsConfig)
    trace: TraceConfig = Field(default_factory=TraceConfig)
    profile: AvatarProfile = Field(default_factory=AvatarProfile, description="the listener avatar by default")
    perception: PerceptionConfig = Field(default_factory=PerceptionConfig)
    generators: GeneratorsConfig = Field(default_factory=GeneratorsConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)

    @model_validator(mode="after")
    def _fusion_sees_enough_labels(self) -> Config:
        if self.agents.emotion_label == "fused" and self.agents.fusion_top_k > self.perception.text_emotion_top_k:
            raise ValueError(
                f"agents.fusion_top_k ({self.agents.fusion_top_k}) exceeds perception.text_emotion_top_k "
                f"({self.perception.text_emotion_top_k}): the classifier passes on only that many labels"
            )
        return self

    def session_db(self) -> str:
        """The checkpointer's SQLite path, ':memory:', or a PostgreSQL URL."""
        if self.sessions.db is None:
            return str(default_home() / "sessions.sqlite")
        if self.sessions.db == ":memory:" or is_postgres_url(self.sessions.db):
            return self.sessions.db
        return str(Path(self.sessions.db).expanduser())


def is_postgres_url(text: str) -> bool:
    """Whether a session store names a PostgreSQL server rather than a SQLite file."""
    return text.startswith(("postgresql://", "postgres://"))


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _nested(dotted: str, value: Any, sep: str = ".") -> dict[str, Any]:
    keys = [k for k in dotted.split(sep) if k]
    if not keys:
        raise ConfigError(f"override '{dotted}' names no key")
    result: dict[str, Any] = {keys[-1]: value}
    for key in reversed(keys[:-1]):
        result = {key: result}
    return result


def _value(raw: str) -> Any:
    """An override's value read as YAML, except text that YAML would misread as a mapping (':memory:')."""
    if not raw.strip():
        return raw
    parsed = yaml.safe_load(raw)
    if isinstance(parsed, dict) and not raw.lstrip().startswith("{"):
        return raw
    return parsed


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for name, raw in sorted(environ.items()):
        if name.startswith(ENV_PREFIX) and "__" in name:
            path = name[len(ENV_PREFIX):].lower()
            merged = _deep_merge(merged, _nested(path, _value(raw), sep="__"))
    return merged


def parse_override(text: str) -> dict[str, Any]:
    """Turn ``section.key=value`` into a nested dict; the value is read as YAML."""
    if "=" not in text:
        raise ConfigError(f"override '{text}' is not of the form key=value (e.g. backbone.model=fast)")
    key, raw = text.split("=", 1)
    return _nested(key.strip(), _value(raw))


# A run configuration or scenario is a few kilobytes, a few levels deep; far larger or deeper
# ones are refused before they are built, and anchors may not expand a file past this many
# values (an "alias bomb") or into itself.
MAX_YAML_BYTES = 1_000_000
MAX_YAML_VALUES = 100_000
MAX_YAML_DEPTH = 50


def too_deep(text: str, limit: int) -> bool:
    """Whether the document's collections nest deeper than ``limit``, read from the parser's
    events and stopping there (PyYAML's own building recurses, and slows down, with depth)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limit:
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False


class _Unsafe(Exception):
    """A composed YAML document that must not be built; the message says why."""


def yaml_expansion_problem(node: yaml.Node) -> str | None:
    """Why a composed YAML document is unsafe to build (a recursive anchor, too many values); None if safe."""
    sizes: dict[int, int] = {}
    building: set[int] = set()

    def size(item: yaml.Node) -> int:
        key = id(item)
        if key in sizes:
            return sizes[key]
        if key in building:
            raise _Unsafe("an anchor refers to itself (a recursive alias)")
        building.add(key)
        children: list[yaml.Node] = []
        if isinstance(item, yaml.SequenceNode):
            children = list(item.value)
        elif isinstance(item, yaml.MappingNode):
            children = [part for pair in item.value for part in pair]
        total = 1
        for child in children:
            total += size(child)
            if total > MAX_YAML_VALUES:
                raise _Unsafe(f"anchors expand it to over {MAX_YAML_VALUES:,} values (an alias bomb?)")
        building.discard(key)
        sizes[key] = total
        return total

    try:
        size(node)
    except _Unsafe as exc:
        return str(exc)
    return None


def read_yaml_mapping(path: Path, what: str, error: type[Exception] = ConfigError) -> dict[str, Any]:
    """Read a YAML file that must hold a mapping; errors name the file and line.

    Size and anchor expansion are checked before the document is built.
    """
    if not path.is_file():
        raise error(f"{what} not found: {path}")
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise error(f"{path}: is {path.stat().st_size:,} bytes, over the {MAX_YAML_BYTES:,} byte limit of a {what}")
        text = path.read_text(encoding="utf-8")
        if too_deep(text, MAX_YAML_DEPTH):
            raise error(f"{path}: nests more than {MAX_YAML_DEPTH} levels deep")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is not None and (problem := yaml_expansion_problem(node)) is not None:
            raise error(f"{path}: {problem}")
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise error(f"{path}:{where} is not valid YAML ({getattr(exc, 'problem', exc)})") from None
    except UnicodeDecodeError:
        raise error(f"{path}: is not a text file") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except RecursionError:
        raise error(f"{path}: nests too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: expected a mapping of keys, got {type(data).__name__}")
    return data


def describe_validation_error(exc: ValidationError, source: str, what: str = "config key") -> str:
    """One line that names each bad key and why."""
    parts = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            parts.append(f"unknown {what} '{key}'")
        elif not key:  # a rule across keys: its message names them
            parts.append(str(err["msg"]).removeprefix("Value error, "))
        else:
            parts.append(f"'{key}': {err['msg']}")
    return f"{source}: " + "; ".join(parts)


def load_config(
    path: str | Path | None = None,
    overrides: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Load a configuration: defaults < YAML file < environment < ``overrides``.

    Args:
        path: a YAML file (see ``configs/``); None for the built-in defaults.
        overrides: ``section.key=value`` strings, as given to ``--set``.
        environ: the environment to read ``EMPATHYGRAPH_SECTION__KEY`` from.

    Raises:
        ConfigError: on a missing file, bad YAML, an unknown key or a bad value.
    """
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        data = read_yaml_mapping(Path(path), "config file")
        source = str(path)
    data = _deep_merge(data, _env_overrides(os.environ if environ is None else environ))
    for text in overrides:
        data = _deep_merge(data, parse_override(text))
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, source)) from None
