"""LLM backbones behind one interface: embedded llama.cpp, OpenAI-compatible servers, scripted."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from empathygraph.backbones.base import Backbone, json_schema_format
from empathygraph.backbones.config import BackboneConfig
from empathygraph.backbones.retry import RetryPolicy
from empathygraph.backbones.scripted import ScriptedChatModel

__all__ = ["Backbone", "RetryPolicy", "ScriptedChatModel", "json_schema_format", "make_backbone", "wrap_chat_model"]


def make_backbone(config: BackboneConfig) -> Backbone:
    """The backbone a configuration names (the embedded model loads lazily)."""
    retry = RetryPolicy(config.retries, config.retry_backoff_s)
    if config.kind == "openai":
        from empathygraph.backbones.openai_server import make_openai_chat_model, request_extras
        from empathygraph.backbones.yes_no import ServerYesNoReader

        return Backbone(
            chat_model=make_openai_chat_model(config),
            name=f"openai:{config.model}@{config.base_url}",
            constraint="none" if config.structured_output == "none" else "extra_body",
            extra_body=request_extras(config),
            schema_format="json_object" if config.structured_output == "json_object" else "json_schema",
            yes_no=ServerYesNoReader(config.base_url or "", config.model, config.api_key, config.timeout_s,
                                     extra_body=request_extras(config), retry=retry),
            retry=retry,
        )
    from empathygraph.backbones.embedded import ChatLlamaCpp
    from empathygraph.backbones.model_files import resolve_model_path
    from empathygraph.backbones.yes_no import reader_from_scorer
    from empathygraph.paths import default_home

    path = resolve_model_path(config.model)
    model = ChatLlamaCpp(
        model_path=str(path),
        n_ctx=config.n_ctx,
        n_threads=config.n_threads,
        draft_tokens=config.draft_tokens,
        json_drafts=config.json_drafts,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        repeat_penalty=config.repeat_penalty,
        prefix_cache_dir=str(default_home() / "prompt-cache") if config.prefix_cache else None,
    )
    return Backbone(
        chat_model=model,
        name=f"embedded:{config.model}",
        constraint="none" if config.structured_output == "none" else "response_format",
        scorer=model.score_continuations,
        yes_no=reader_from_scorer(model.score_continuations),
        hidden_state=model.hidden_state,
        retry=retry,
    )


def wrap_chat_model(chat_model: BaseChatModel, name: str | None = None) -> Backbone:
    """Use any LangChain chat model that accepts an OpenAI ``response_format`` argument."""
    return Backbone(chat_model=chat_model, name=name or chat_model._llm_type)
