"""The embedded default backbone: a GGUF model in-process through llama-cpp-python.

No server and no network. Output is constrained at decode time by a grammar built
from each agent's JSON schema, checked on the drawn token first (``grammar_first``). llama.cpp keeps the KV cache of the previous
prompt, so agents whose prompts share a prefix skip re-reading it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from empathygraph.backbones.base import (
    ContinuationScores,
    token_chunk,
    usage_chunk,
    usage_metadata,
    without_max_length,
)
from empathygraph.cpu_share import DECODE_YIELD
from empathygraph.errors import BackendError

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def _as_dicts(messages: list[BaseMessage]) -> list[dict[str, str]]:
    return [{"role": _ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]


def _llama_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """OpenAI's json_schema response_format in llama-cpp-python's spelling."""
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        return {"type": "json_object", "schema": without_max_length(response_format["json_schema"]["schema"])}
    return response_format


class ChatLlamaCpp(BaseChatModel):
    """LangChain chat model over a local GGUF file.

    Args:
        model_path: the GGUF file.
        n_ctx: context window in tokens.
        n_threads: CPU threads; None uses every core.
        draft_tokens: tokens drafted by prompt lookup and checked in one batch (0: off).
        json_drafts: draft what a JSON-schema answer's grammar forces next (keys, punctuation, the
            rest of an allowed value), checked in one batch.
        temperature, max_tokens, seed, repeat_penalty: sampling settings.
        use_mmap: map the GGUF file instead of reading it. Off: llama.cpp repacks the
            weights for the CPU anyway, and a mapping keeps the file's pages resident
            beside that copy (measured: 1.90 GB vs 1.31 GB RSS for the default model).
        prefix_cache_dir: keep the reading of the system message here between processes
            (``backbones/prefix_cache.py``; None: read it anew in each process).
    """

    model_path: str
    n_ctx: int = 4096
    n_threads: int | None = None
    draft_tokens: int = 0
    json_drafts: bool = False
    temperature: float = 0.2
    max_tokens: int = 200
    seed: int = 0
    repeat_penalty: float = 1.0
    use_mmap: bool = False
    prefix_cache_dir: str | None = None
    _llama: Any = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "temperature": self.temperature}

    def load(self) -> Any:
        """Load the model now (else on first use)."""
        if self._llama is None:
            try:
                from empathygraph.backbones.grammar_first import GrammarFirstLlama, PromptLookupDraft
                from empathygraph.backbones.prefix_cache import PrefixCache
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise BackendError(f"llama-cpp-python is not installed ({exc})") from None
            self._llama = GrammarFirstLlama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads or os.cpu_count() or 2,
                seed=self.seed,
                use_mmap=self.use_mmap,
                verbose=False,
                lookup=PromptLookupDraft(tokens=self.draft_tokens) if self.draft_tokens else None,
                json_drafts=self.json_drafts,
                prefix_cache=PrefixCache(Path(self.prefix_cache_dir)) if self.prefix_cache_dir else None,
            )
        return self._llama

    def score_continuations(self, messages: list[BaseMessage], continuations: list[str]) -> ContinuationScores:
        """Log-probability of each continuation as the start of the reply to ``messages``."""
        llama = self.load()
        with self._lock:
            logprobs, read = llama.continuation_logprobs(_as_dicts(messages), continuations)
        return ContinuationScores(logprobs=logprobs, prompt_tokens=read)

    def hidden_state(self, messages: list[BaseMessage], span: str, layer: int | None = None) -> Any:
        """The mean of the model's hidden states over ``span``, the end of the last message's text, at
        ``layer`` (None: the final states; ``GrammarFirstLlama.hidden_state``): a vector of the model's
        width, read as the start of the next step's prompt."""
        llama = self.load()
        with self._lock:
            state, _ = llama.hidden_state(_as_dicts(messages), span, layer)
        return state

    def _params(self, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {
            "temperature": kwargs.get("temperature", self.temperature),
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "stop": stop,
            "seed": self.seed,
            "repeat_penalty": self.repeat_penalty,
            "response_format": _llama_format(kwargs.get("response_format")),
        }

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        llama = self.load()
        with self._lock:
            result = llama.create_chat_completion(messages=_as_dicts(messages), **self._params(stop, kwargs))
        usage = result.get("usage") or {}
        metadata = usage_metadata(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0))
        text = result["choices"][0]["message"]["content"] or ""
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=metadata))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        llama = self.load()
        produced = 0
        with self._lock:
            for part in llama.create_chat_completion(
                messages=_as_dicts(messages), stream=True, **self._params(stop, kwargs)
            ):
                text = part["choices"][0]["delta"].get("content") or ""
                if not text:
                    continue
                produced += 1
                yield token_chunk(text, run_manager)
                DECODE_YIELD.wait()  # speech the listener is waiting for has the cores first
            # After generation the context holds prompt + completion tokens.
            prompt_tokens = max(llama.n_tokens - produced, 0)
        yield usage_chunk(prompt_tokens, produced)
