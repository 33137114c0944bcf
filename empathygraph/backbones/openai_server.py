"""The production backbone: any OpenAI-compatible server, such as vLLM.

Structured outputs travel as ``response_format`` json_schema in the request body,
which vLLM enforces at decode time. Qwen3-style thinking is switched off unless
the config asks for it.
"""

from __future__ import annotations

import httpx
from langchain_openai import ChatOpenAI

from empathygraph.backbones.config import BackboneConfig
from empathygraph.errors import BackendError


def check_reachable(base_url: str, api_key: str, timeout_s: float) -> list[str]:
    """Ask the server for its models; return their ids.

    Raises:
        BackendError: naming the URL when it does not answer within ``timeout_s``.
    """
    url = base_url.rstrip("/") + "/models"
    try:
        response = httpx.get(url, headers={"Authorization": f"Bearer {api_key}"}, timeout=timeout_s)
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        raise BackendError(f"LLM server at {base_url} answered {exc.response.status_code} to GET /models") from None
    except httpx.HTTPError as exc:
        raise BackendError(f"LLM server at {base_url} is unreachable ({type(exc).__name__}) within {timeout_s:.0f} s") from None
    return [item.get("id", "") for item in response.json().get("data", [])]


def make_openai_chat_model(config: BackboneConfig) -> ChatOpenAI:
    """A ChatOpenAI client for the configured server (checked to be reachable)."""
    if not config.base_url:
        raise BackendError("backbone.kind is 'openai' but backbone.base_url is not set")
    served = check_reachable(config.base_url, config.api_key, config.connect_timeout_s)
    if served and config.model not in served:
        raise BackendError(f"LLM server at {config.base_url} does not serve '{config.model}' (it serves: {', '.join(served)})")
    return ChatOpenAI(
        base_url=config.base_url,
        api_key=config.api_key,
        model=config.model,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        timeout=config.timeout_s,
        max_retries=0,  # the backbone's RetryPolicy retries, bounded and backed off
        stream_usage=True,
    )


def request_extras(config: BackboneConfig) -> dict[str, object]:
    """Request-body fields beyond OpenAI's: the chat-template thinking switch (none when unset)
    and vLLM's ``repetition_penalty`` (when the config sets one)."""
    body: dict[str, object] = {}
    if config.thinking is not None:
        body["chat_template_kwargs"] = {"enable_thinking": config.thinking}
    if config.repeat_penalty != 1.0:
        body["repetition_penalty"] = config.repeat_penalty
    return body
