"""The one interface every LLM backbone offers the agents.

A backbone is a LangChain chat model plus the way to ask it for output that
follows a JSON schema at decode time. Any ``BaseChatModel`` can be wrapped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from empathygraph.backbones.retry import RetryPolicy, invoke_with_retries

ConstraintStyle = Literal["response_format", "extra_body", "none"]
SchemaFormat = Literal["json_schema", "json_object"]


def without_max_length(schema: Any) -> Any:
    """The schema minus ``maxLength``.

    llama.cpp unrolls ``maxLength`` into one grammar rule per character, which fails
    for long limits. Length stays bounded by the prompt, ``max_tokens`` and the
    pydantic validation that follows.
    """
    if isinstance(schema, dict):
        return {k: without_max_length(v) for k, v in schema.items() if k != "maxLength"}
    if isinstance(schema, list):
        return [without_max_length(v) for v in schema]
    return schema


@functools.lru_cache(maxsize=512)
def json_schema_format(schema: type[BaseModel], style: SchemaFormat = "json_schema") -> dict[str, Any]:
    """The ``response_format`` that constrains decoding to ``schema`` (cached: do not mutate it).

    ``json_schema`` is OpenAI's spelling (vLLM and most servers); ``json_object`` is
    llama-cpp-python's (``{"type": "json_object", "schema": ...}``).
    """
    if style == "json_object":
        return {"type": "json_object", "schema": without_max_length(schema.model_json_schema())}
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": True},
    }


def usage_metadata(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    """LangChain's usage record for one call."""
    return {"input_tokens": prompt_tokens, "output_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


def token_chunk(text: str, run_manager: CallbackManagerForLLMRun | None) -> ChatGenerationChunk:
    """One streamed piece of text, announced to the callbacks (LangGraph's messages stream)."""
    chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
    if run_manager:
        run_manager.on_llm_new_token(text, chunk=chunk)
    return chunk


def usage_chunk(prompt_tokens: int, completion_tokens: int) -> ChatGenerationChunk:
    """The closing empty chunk of a stream, carrying the token usage."""
    return ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage_metadata(prompt_tokens, completion_tokens)))


class HiddenStateReader(Protocol):
    """Reads the mean hidden state over ``span``, the end of the last message, at ``layer`` (None: the final states)."""

    def __call__(self, messages: list[BaseMessage], span: str, layer: int | None = None) -> Any: ...


@dataclass(frozen=True)
class ContinuationScores:
    """How likely the model finds each candidate start of its reply to a prompt."""

    logprobs: list[float]
    prompt_tokens: int  # tokens the model had to read (a cached prefix is free)


ContinuationScorer = Callable[[list[BaseMessage], list[str]], ContinuationScores]


@dataclass
class Backbone:
    """A chat model and how to constrain it to a schema.

    Attributes:
        chat_model: any LangChain chat model.
        name: shown in traces, e.g. ``embedded:qwen2.5-coder-1.5b``.
        constraint: how the schema reaches the model: a ``response_format`` call
            argument (llama.cpp adapter, scripted models), inside ``extra_body``
            (OpenAI-compatible servers such as vLLM), or not at all.
        extra_body: sent with every request to an OpenAI-compatible server.
        schema_format: how a server spells the schema constraint.
        scorer: scores candidate replies without generating (the embedded model has one);
            None where the backbone cannot.
        yes_no: reads how likely the model answers "yes" to a closed question (embedded:
            scored; a server: first-token logprobs, else a constrained answer); None where
            the backbone cannot.
        hidden_state: the mean of the model's hidden states (one layer's outputs, or the final
            states) over a span that ends the last message (the embedded model only; what probes
            trained on this model read); None where the backbone cannot.
        retry: how transient failures of a call (timeouts, dropped connections) are retried.
    """

    chat_model: BaseChatModel
    name: str
    constraint: ConstraintStyle = "response_format"
    extra_body: dict[str, Any] = field(default_factory=dict)
    schema_format: SchemaFormat = "json_schema"
    scorer: ContinuationScorer | None = None
    yes_no: Callable[[list[BaseMessage]], Any] | None = None
    hidden_state: HiddenStateReader | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def for_schema(self, schema: type[BaseModel] | None) -> Runnable:
        """The chat model bound so its answer follows ``schema`` (plain text when None)."""
        if self.constraint == "extra_body":
            body = dict(self.extra_body)
            if schema is not None:
                body["response_format"] = json_schema_format(schema, self.schema_format)
            return self.chat_model.bind(extra_body=body) if body else self.chat_model
        if self.constraint == "response_format" and schema is not None:
            return self.chat_model.bind(response_format=json_schema_format(schema))
        return self.chat_model

    def invoke(self, runnable: Runnable, messages: list[BaseMessage]) -> BaseMessage:
        """Call ``runnable`` (from ``for_schema``) with this backbone's retry policy.

        Raises:
            BackendError: the call still failed after the bounded retries, or failed for good.
        """
        return invoke_with_retries(runnable, messages, name=self.name, policy=self.retry)
