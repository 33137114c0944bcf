"""Run configuration: YAML file, then environment, then command-line overrides.

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

from empathygraph.errors import ConfigError
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarProfile, RiskCategory
from empathygraph.tools.config import PerceptionConfig

ENV_PREFIX = "EMPATHYGRAPH_"


def default_home() -> Path:
    """Folder for caches and session databases (``EMPATHYGRAPH_HOME`` or ~/.cache/empathygraph)."""
    return Path(os.environ.get("EMPATHYGRAPH_HOME", Path.home() / ".cache" / "empathygraph"))


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BackboneConfig(Section):
    """The LLM every agent reasons with."""

    kind: Literal["embedded", "openai"] = "embedded"
    model: str = Field(
        default="qwen2.5-coder-1.5b",
        description="embedded: a preset name (qwen2.5-coder-1.5b, fast) or a GGUF path; "
        "openai: the model name the server serves",
    )
    base_url: str | None = Field(default=None, description="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    api_key: str = "EMPTY"
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    max_tokens: int = Field(default=200, ge=16)
    seed: int = 0
    repeat_penalty: float = Field(
        default=1.0, ge=1.0, le=2.0, description=">1 discourages loops (small models repeat themselves); vLLM: repetition_penalty"
    )
    n_ctx: int = Field(default=4096, ge=512)
    n_threads: int | None = Field(default=None, description="embedded: CPU threads (default: all cores)")
    draft_tokens: int = Field(
        default=3, ge=0, le=8,
        description="embedded: tokens drafted by prompt lookup and checked in one batch (0: off); "
        "sampled from the same distribution",
    )
    json_drafts: bool = Field(
        default=True,
        description="embedded: draft what a JSON answer's schema forces next (keys, punctuation, the rest of an "
        "allowed value) and check it in one batch; sampled from the same distribution",
    )
    timeout_s: float = Field(default=120.0, gt=0)
    connect_timeout_s: float = Field(default=10.0, gt=0)
    thinking: bool | None = Field(
        default=False, description="let Qwen3-style models think before answering; null sends no switch"
    )
    structured_output: Literal["json_schema", "json_object", "none"] = Field(
        default="json_schema",
        description="constrain decoding to each agent's JSON schema: json_schema (OpenAI/vLLM spelling), "
        "json_object (llama-cpp-python server spelling) or none",
    )


class AgentsConfig(Section):
    """How the agents reason."""

    reflection_rounds: int = Field(default=1, ge=0, le=5, description="most times reflection may send a reply back")
    reflection_llm: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="ask the LLM critic as well as the rule checks; auto: only on a server backbone "
        "(on the embedded CPU model it costs ~2 s a turn and a ~6 s rewrite when it objects)",
    )
    repair_attempts: int = Field(default=1, ge=0, le=3, description="re-asks after an invalid output")
    perception_llm: Literal["auto", "always", "never"] = Field(
        default="auto", description="auto: ask the LLM to fuse cues only when a turn has several modalities"
    )
    emotion_label: Literal["fused", "auto", "classifier", "llm"] = Field(
        default="fused",
        description="the text classifier decides when confident; below that, fused: its top labels are "
        "weighed by the LLM's likelihood of each (needs a backbone that scores, e.g. the embedded one; "
        "else as auto), auto: the LLM names the emotion; classifier: always the classifier; llm: always the LLM",
    )
    classifier_min_confidence: float = Field(default=0.25, ge=0.0, le=1.0)
    fusion_top_k: int = Field(
        default=3, ge=2, le=32,
        description="classifier labels the fusion weighs (at most perception.text_emotion_top_k, which it is given)",
    )
    fusion_llm_weight: float = Field(
        default=0.3, ge=0.0, description="weight of the LLM's log-likelihood (scripts/tune_emotion_policy.py)"
    )
    emotion_choices: int = Field(
        default=0, ge=0, le=32,
        description="when the LLM names the emotion, it chooses among the classifier's top N (0: all 32)",
    )
    cause_quote: Literal["free", "clause"] = Field(
        default="free",
        description="free: the LLM copies words of the message and a misquote is re-asked; "
        "clause: decoding is constrained to one of the message's clauses (never a misquote; for weak models)",
    )
    strategy_label: Literal["auto", "prior", "llm"] = Field(
        default="prior",
        description="prior: the trained ESConv strategy prior decides (measured best on ESConv valid); "
        "auto: the prior when confident, else the LLM among its likeliest; llm: the LLM alone",
    )
    prior_min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    reply_max_words: int = Field(default=30, ge=5, description="asked of the LLM; 1.5x this is refused")
    history_turns: int = Field(default=4, ge=0, description="earlier turns shown to the agents")


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
    context_turns: int = Field(default=3, ge=0, le=10,
                               description="earlier user turns the classifier also reads together with this one")
    llm_read: Literal["gray", "always", "off"] = Field(
        default="gray", description="ask the LLM's own yes/no reading: only when the classifier is unsure (gray), "
        "on every turn, or never")
    llm_threshold: float = Field(default=0.5, ge=0.0, le=1.0, description="P(yes) at which the LLM reading fires")
    acknowledgment: Literal["llm", "fixed"] = Field(
        default="llm", description="crisis reply's first sentence: written by the LLM and checked, or fixed per category")

    def resources_for(self, categories: Sequence[RiskCategory]) -> list[str]:
        """The helplines for a reply: every category's own, then the general ones, each once."""
        found = [r for c in categories for r in self.resources_by_category.get(c, [])]
        return list(dict.fromkeys([*found, *self.resources]))


class SessionsConfig(Section):
    """Where conversations persist between runs."""

    db: str | None = Field(default=None, description="SQLite file (default: <home>/sessions.sqlite); ':memory:' keeps nothing")


class Config(Section):
    """A whole run configuration."""

    backbone: BackboneConfig = Field(default_factory=BackboneConfig)
    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    sessions: SessionsConfig = Field(default_factory=SessionsConfig)
    profile: AvatarProfile = Field(default_factory=AvatarProfile, description="the listener avatar by default")
    perception: PerceptionConfig = Field(default_factory=PerceptionConfig)
    generators: GeneratorsConfig = Field(default_factory=GeneratorsConfig)

    @model_validator(mode="after")
    def _fusion_sees_enough_labels(self) -> Config:
        if self.agents.emotion_label == "fused" and self.agents.fusion_top_k > self.perception.text_emotion_top_k:
            raise ValueError(
                f"agents.fusion_top_k ({self.agents.fusion_top_k}) exceeds perception.text_emotion_top_k "
                f"({self.perception.text_emotion_top_k}): the classifier passes on only that many labels"
            )
        return self

    def session_db(self) -> str:
        """The checkpointer's SQLite path, or ':memory:'."""
        if self.sessions.db is None:
            return str(default_home() / "sessions.sqlite")
        return self.sessions.db if self.sessions.db == ":memory:" else str(Path(self.sessions.db).expanduser())


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


def read_yaml_mapping(path: Path, what: str, error: type[Exception] = ConfigError) -> dict[str, Any]:
    """Read a YAML file that must hold a mapping; errors name the file and line."""
    if not path.is_file():
        raise error(f"{what} not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise error(f"{path}:{where} is not valid YAML ({getattr(exc, 'problem', exc)})") from None
    except UnicodeDecodeError:
        raise error(f"{path}: is not a text file") from None
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
