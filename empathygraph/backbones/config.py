"""Settings of the LLM backbone (the ``backbone`` section of a run configuration)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class BackboneConfig(BaseModel):
    """The LLM every agent reasons with."""

    model_config = ConfigDict(extra="forbid")

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
    prefix_cache: bool = Field(
        default=True,
        description="embedded: keep the model's reading of the system prompt on disk (~12 MB a prompt under the "
        "cache folder's prompt-cache/), so a new process does not read it again (~6.5 s on 2 cores)",
    )
    timeout_s: float = Field(default=120.0, gt=0)
    retries: int = Field(default=2, ge=0, le=10,
                         description="tries again after a transient failure (timeout, dropped connection, 5xx)")
    retry_backoff_s: float = Field(default=0.5, ge=0, description="pause before the first retry; doubles after")
    connect_timeout_s: float = Field(default=10.0, gt=0)
    thinking: bool | None = Field(
        default=False, description="let Qwen3-style models think before answering; null sends no switch"
    )
    structured_output: Literal["json_schema", "json_object", "none"] = Field(
        default="json_schema",
        description="constrain decoding to each agent's JSON schema: json_schema (OpenAI/vLLM spelling), "
        "json_object (llama-cpp-python server spelling) or none",
    )
