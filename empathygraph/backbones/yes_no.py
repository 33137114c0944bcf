"""Read how likely a model answers "yes" to a closed question, without letting it write an answer.

Three ways, best first: the embedded model scores both words after the prompt (nothing
decoded); an OpenAI-compatible server returns the log-probabilities of its first answer
token (``logprobs`` + ``top_logprobs``; vLLM and llama.cpp's server do); a server that gives
none is asked for a one-word answer constrained to yes or no, read as 1 or 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from langchain_core.messages import BaseMessage

from empathygraph.backbones.base import ContinuationScorer
from empathygraph.backbones.retry import RetryPolicy, call_with_retries
from empathygraph.errors import BackendError

ReadMethod = Literal["scored", "logprobs", "constrained"]
TOP_LOGPROBS = 20


@dataclass(frozen=True)
class YesNoReading:
    """P(yes) over P(yes) + P(no), how it was read, and what it cost."""

    p_yes: float
    method: ReadMethod
    prompt_tokens: int
    latency_s: float


YesNoReader = Callable[[list[BaseMessage]], YesNoReading]


def reader_from_scorer(scorer: ContinuationScorer) -> YesNoReader:
    """A reader over a backbone that scores continuations (the embedded model)."""

    def read(messages: list[BaseMessage]) -> YesNoReading:
        started = time.perf_counter()
        scores = scorer(messages, ["yes", "no"])
        yes, no = scores.logprobs
        p_yes = 1.0 / (1.0 + math.exp(no - yes))
        return YesNoReading(p_yes, "scored", scores.prompt_tokens, time.perf_counter() - started)

    return read


_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


def _as_openai(messages: list[BaseMessage]) -> list[dict[str, str]]:
    return [{"role": _ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]


def _yes_no_mass(top: list[dict[str, Any]]) -> tuple[float, float]:
    """Probability mass of the first-token spellings of yes and of no ("Yes", " yes", "YES" ...)."""
    yes = no = 0.0
    for item in top:
        word = str(item.get("token", "")).strip().lower()
        if word in ("yes", "no"):
            p = math.exp(float(item.get("logprob", -math.inf)))
            yes, no = (yes + p, no) if word == "yes" else (yes, no + p)
    return yes, no


class ServerYesNoReader:
    """Reads P(yes) from an OpenAI-compatible server: first-token logprobs, else a constrained answer.

    Args:
        base_url: the server's ``/v1`` URL.
        model: the served model name.
        api_key: bearer key.
        timeout_s: per request.
        extra_body: request fields beyond OpenAI's (e.g. the thinking switch).
        client: an ``httpx.Client`` (tests pass one with a mock transport).
        retry: how a dropped connection, timeout or 5xx is asked again (default: not at all).
    """

    def __init__(self, base_url: str, model: str, api_key: str = "EMPTY", timeout_s: float = 30.0,
                 extra_body: dict[str, Any] | None = None, client: httpx.Client | None = None,
                 retry: RetryPolicy | None = None) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.extra_body = model, dict(extra_body or {})
        self.client = client or httpx.Client(timeout=timeout_s, headers={"Authorization": f"Bearer {api_key}"})
        self.retry = retry or RetryPolicy(retries=0)
        self.logprobs_unsupported = False

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        """The server's answer; a dropped connection, timeout or 5xx is asked again (``retry``).

        Raises:
            BackendError: the server failed after its retries, or answered with something that is not a JSON object.
        """
        def once() -> Any:
            response = self.client.post(self.url, json={"model": self.model, **self.extra_body, **body})
            response.raise_for_status()
            return response.json()

        answer = call_with_retries(once, name=f"{self.url} (a yes/no read)", policy=self.retry)
        if not isinstance(answer, dict):
            raise BackendError(f"LLM server at {self.url} answered a yes/no read with {type(answer).__name__}, "
                               "not a JSON object")
        return answer

    def __call__(self, messages: list[BaseMessage]) -> YesNoReading:
        """P(yes) for ``messages``.

        Raises:
            BackendError: the server failed, or its answer does not have the shape of a chat completion.
        """
        try:
            return self._read(messages)
        except (AttributeError, TypeError, IndexError, KeyError, ValueError, ArithmeticError) as exc:  # a body of the wrong shape
            raise BackendError(f"LLM server at {self.url} gave an unreadable yes/no answer: "
                               f"{type(exc).__name__}: {exc}") from exc

    def _read(self, messages: list[BaseMessage]) -> YesNoReading:
        started = time.perf_counter()
        chat = _as_openai(messages)
        if not self.logprobs_unsupported:
            answer = self._post({"messages": chat, "max_tokens": 1, "temperature": 0.0,
                                 "logprobs": True, "top_logprobs": TOP_LOGPROBS})
            content = ((answer.get("choices") or [{}])[0].get("logprobs") or {}).get("content") or []
            yes, no = _yes_no_mass(content[0].get("top_logprobs") or []) if content else (0.0, 0.0)
            tokens = int((answer.get("usage") or {}).get("prompt_tokens", 0))
            if yes + no > 0:
                return YesNoReading(yes / (yes + no), "logprobs", tokens, time.perf_counter() - started)
            self.logprobs_unsupported = not content  # no logprobs at all: stop asking for them
        schema = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
                  "required": ["answer"]}
        answer = self._post({"messages": chat, "max_tokens": 8, "temperature": 0.0, "response_format": {
            "type": "json_schema", "json_schema": {"name": "YesNo", "schema": schema, "strict": True}}})
        text = str(((answer.get("choices") or [{}])[0].get("message") or {}).get("content") or "").lower()
        tokens = int((answer.get("usage") or {}).get("prompt_tokens", 0))
        return YesNoReading(1.0 if "yes" in text else 0.0, "constrained", tokens, time.perf_counter() - started)
