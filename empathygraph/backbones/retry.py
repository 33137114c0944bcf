"""Call a backbone with bounded retries of transient failures (timeouts, dropped connections, 5xx).

A server that restarts, sheds load or drops a stream mid-reply is asked again after a short,
growing pause; anything else (a bad request, a model that cannot load) fails at once. Either
way the caller sees one typed ``BackendError`` naming the backbone and the last problem.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable

from empathygraph.errors import BackendError

# HTTP answers worth asking again: timeout, too many requests, server errors.
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a transient failure is retried.

    Attributes:
        retries: extra tries after the first (0: none).
        backoff_s: pause before the first retry; each further pause doubles it.
    """

    retries: int = 2
    backoff_s: float = 0.5


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is worth a retry."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TimeoutError | ConnectionError | httpx.TransportError):
            return True
        status = getattr(seen, "status_code", None) or getattr(getattr(seen, "response", None), "status_code", None)
        if status in RETRY_STATUS:  # openai's status errors carry it, httpx's on their response
            return True
        if type(seen).__name__ in ("APIConnectionError", "APITimeoutError"):  # openai's, without importing it
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def call_with_retries(call: Callable[[], T], *, name: str, policy: RetryPolicy) -> T:
    """``call()``, retried on transient failures.

    Raises:
        BackendError: naming the backbone, the failure and how many tries were made.
    """
    for attempt in range(policy.retries + 1):
        try:
            return call()
        except BackendError:
            raise
        except Exception as exc:  # any client error: the backbone is unusable, for now or for good
            transient = is_transient(exc)
            if not transient or attempt == policy.retries:
                tries = f" after {attempt + 1} tries" if transient else ""
                raise BackendError(f"LLM backbone {name} failed{tries}: {type(exc).__name__}: {exc}") from exc
            time.sleep(policy.backoff_s * 2**attempt)
    raise AssertionError("unreachable")  # the loop returns or raises


def invoke_with_retries(runnable: Runnable, messages: list[BaseMessage], *, name: str,
                        policy: RetryPolicy) -> BaseMessage:
    """``runnable.invoke(messages)``, retried on transient failures (``call_with_retries``)."""
    return call_with_retries(lambda: runnable.invoke(messages), name=name, policy=policy)
