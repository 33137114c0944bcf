"""A scripted chat model for tests and the framework-overhead benchmark.

It answers each call from a script keyed by the requested schema's name, so a test
can say exactly what each agent "thinks" and check what each agent was asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from empathygraph.backbones.base import token_chunk, usage_chunk, usage_metadata

Answer = str | dict[str, Any]
Responder = Callable[[list[BaseMessage], str | None], Answer]


class ScriptedCall:
    """One call the scripted model received."""

    def __init__(self, messages: list[BaseMessage], schema_name: str | None, options: dict[str, Any]) -> None:
        self.messages = messages
        self.schema_name = schema_name
        self.options = options

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.content) for m in self.messages)


class ScriptedChatModel(BaseChatModel):
    """Chat model whose answers come from a script, not a network or weights.

    Args:
        script: per schema name (e.g. ``"ResponseDraft"``), either one answer, a list
            of answers used in turn (the last repeats), or a function of
            ``(messages, schema_name)``. The key ``"*"`` answers anything else.
            Dict answers are sent as JSON.
    """

    script: dict[str, Any]
    _calls: list[ScriptedCall] = PrivateAttr(default_factory=list)
    _served: dict[str, int] = PrivateAttr(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[ScriptedCall]:
        return self._calls

    def calls_for(self, schema_name: str) -> list[ScriptedCall]:
        return [c for c in self._calls if c.schema_name == schema_name]

    def _answer(self, messages: list[BaseMessage], schema_name: str | None, options: dict[str, Any]) -> str:
        self._calls.append(ScriptedCall(messages, schema_name, options))
        key = schema_name if schema_name in self.script else "*"
        if key not in self.script:
            raise KeyError(f"scripted model has no answer for schema {schema_name!r}")
        entry = self.script[key]
        if callable(entry):
            answer: Answer = entry(messages, schema_name)
        elif isinstance(entry, Sequence) and not isinstance(entry, str | bytes):
            index = self._served.get(key, 0)
            self._served[key] = index + 1
            answer = entry[min(index, len(entry) - 1)]
        else:
            answer = entry
        return json.dumps(answer) if isinstance(answer, Mapping) else str(answer)

    @staticmethod
    def _schema_name(kwargs: Mapping[str, Any]) -> str | None:
        fmt = kwargs.get("response_format") or {}
        return fmt.get("json_schema", {}).get("name")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self._answer(messages, self._schema_name(kwargs), dict(kwargs))
        # Words stand in for tokens: a scripted model has no tokenizer.
        usage = usage_metadata(sum(len(str(m.content).split()) for m in messages), len(text.split()))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        for index, piece in enumerate(str(message.content).split(" ")):
            yield token_chunk(piece if index == 0 else " " + piece, run_manager)
        usage = message.usage_metadata or {}
        yield usage_chunk(usage.get("input_tokens", 0), usage.get("output_tokens", 0))
