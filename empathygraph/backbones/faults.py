"""A fault-injecting chat model for tests and benchmarks: a backbone that misbehaves on purpose.

``with_faults(backbone, FaultPlan(rate=0.3))`` wraps the backbone's chat model; each call
draws (from a seeded generator) whether it fails and how: the server errors, times out or
answers slowly; the answer is malformed or truncated JSON, or empty; or the stream is cut
mid-reply. The scorer and the yes/no reader are kept as they are. ``FaultyChatModel.log``
says which fault each call got, so a test can tie an outcome to its cause.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from empathygraph.backbones.base import Backbone, token_chunk, usage_chunk

Fault = Literal["error", "timeout", "slow", "malformed", "truncated", "empty", "stream_cut"]
FAULTS: tuple[Fault, ...] = get_args(Fault)


class InjectedFault(Exception):
    """Base of the failures the wrapper raises (each also an ordinary transport error)."""


class InjectedServerError(InjectedFault, ConnectionError):
    """The server answered with an error (as a 503 or a reset connection would)."""


class InjectedTimeout(InjectedFault, TimeoutError):
    """The server did not answer in time."""


class InjectedStreamCut(InjectedFault, ConnectionError):
    """The connection closed in the middle of a streamed reply."""


@dataclass(frozen=True)
class FaultPlan:
    """How often and how a wrapped backbone fails.

    Attributes:
        rate: share of calls that get a fault (0 to 1).
        kinds: the faults drawn from, uniformly.
        seed: seeds the draws, so a run is repeatable.
        slow_s: extra seconds a slow answer takes.
        timeout_s: seconds a timed-out call waits before it fails.
        sequence: the fault of each call in order, then none (replaces the random draws; for
            a test that needs one exact story).
    """

    rate: float = 0.3
    kinds: tuple[Fault, ...] = FAULTS
    seed: int = 0
    slow_s: float = 0.5
    timeout_s: float = 0.2
    sequence: tuple[Fault | None, ...] = ()

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate must be within 0..1, not {self.rate}")
        unknown = set(self.kinds) - set(FAULTS)
        if unknown or not self.kinds:
            raise ValueError(f"unknown or no fault kinds {sorted(unknown)} (known: {', '.join(FAULTS)})")


def corrupt(text: str, fault: Fault) -> str:
    """The answer as the fault leaves it: malformed (a broken key and brace), truncated (half) or empty."""
    if fault == "malformed":
        return text.replace('"', "", 1).replace("}", ",,", 1) if "{" in text else "{" + text
    if fault == "truncated":
        return text[: len(text) // 2]
    if fault == "empty":
        return ""
    return text


class FaultyChatModel(BaseChatModel):
    """Wraps a chat model and injects faults into a share of its calls.

    Args:
        inner: the chat model that answers when no fault is drawn.
        plan: the fault rate, kinds and seed.
    """

    inner: BaseChatModel
    plan: FaultPlan
    _rng: random.Random = PrivateAttr()
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _log: list[Fault | None] = PrivateAttr(default_factory=list)

    def model_post_init(self, context: Any) -> None:
        self._rng = random.Random(self.plan.seed)

    @property
    def _llm_type(self) -> str:
        return f"faulty-{self.inner._llm_type}"

    @property
    def log(self) -> list[Fault | None]:
        """The fault each call got (None: answered as the inner model did), in call order."""
        return list(self._log)

    def _draw(self) -> tuple[Fault | None, int]:
        with self._lock:
            if self.plan.sequence:
                index = len(self._log)
                fault = self.plan.sequence[index] if index < len(self.plan.sequence) else None
            else:
                fault = self._rng.choice(self.plan.kinds) if self._rng.random() < self.plan.rate else None
            cut_after = self._rng.randint(1, 6)
            self._log.append(fault)
        return fault, cut_after

    def _fail_or_wait(self, fault: Fault | None) -> None:
        if fault == "error":
            raise InjectedServerError("injected fault: the server answered 503 Service Unavailable")
        if fault == "timeout":
            time.sleep(self.plan.timeout_s)
            raise InjectedTimeout(f"injected fault: no answer within {self.plan.timeout_s} s")
        if fault == "slow":
            time.sleep(self.plan.slow_s)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fault, _ = self._draw()
        self._fail_or_wait(fault)
        if fault == "stream_cut":  # a non-streamed body cut off is a dropped connection too
            raise InjectedStreamCut("injected fault: the connection closed before the answer was complete")
        result = self.inner._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        message = result.generations[0].message
        text = corrupt(str(message.content), fault) if fault else str(message.content)
        answer = AIMessage(content=text, usage_metadata=getattr(message, "usage_metadata", None))
        return ChatResult(generations=[ChatGeneration(message=answer)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        fault, cut_after = self._draw()
        self._fail_or_wait(fault)
        if fault in ("malformed", "truncated", "empty"):
            result = self.inner._generate(messages, stop=stop, run_manager=None, **kwargs)
            message = result.generations[0].message
            for index, piece in enumerate(corrupt(str(message.content), fault).split(" ")):
                yield token_chunk(piece if index == 0 else " " + piece, run_manager)
            usage = getattr(message, "usage_metadata", None) or {}
            yield usage_chunk(usage.get("input_tokens", 0), usage.get("output_tokens", 0))
            return
        for index, chunk in enumerate(self.inner._stream(messages, stop=stop, run_manager=run_manager, **kwargs)):
            if fault == "stream_cut" and index >= cut_after:
                break
            yield chunk
        if fault == "stream_cut":
            raise InjectedStreamCut(f"injected fault: the stream closed after {cut_after} pieces of the reply")


def with_faults(backbone: Backbone, plan: FaultPlan) -> Backbone:
    """``backbone`` with faults injected into its chat model (scorer and yes/no reader kept)."""
    faulty = FaultyChatModel(inner=backbone.chat_model, plan=plan)
    return replace(backbone, chat_model=faulty, name=f"{backbone.name}+faults({plan.rate:g})")
