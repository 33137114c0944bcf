"""Send trace records as OpenTelemetry spans following the GenAI semantic conventions.

Each turn becomes an ``invoke_agent empathygraph`` span; each agent step an
``invoke_agent <step>`` child, each perception tool an ``execute_tool <step>``
child, and each LLM attempt a ``chat`` grandchild with token usage. Needs the
``otel`` extra (``pip install 'empathygraph[otel]'``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from empathygraph.errors import EmpathyGraphError
from empathygraph.trace.records import StepRecord
from empathygraph.trace.replay import group_turns
from empathygraph.turn import TurnResult

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Tracer

SYSTEM = "empathygraph"


class OtelMissing(EmpathyGraphError):
    """OpenTelemetry is not installed."""


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


def _end_s(step: StepRecord) -> float:
    try:
        return datetime.fromisoformat(step.started_at).timestamp() + step.latency_s
    except ValueError:
        return 0.0


def _step_attributes(step: StepRecord, turn: TurnResult) -> dict[str, Any]:
    tool = step.kind == "tool"
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool" if tool else "invoke_agent",
        "gen_ai.conversation.id": turn.session_id,
        "empathygraph.step.kind": step.kind,
        "empathygraph.step.round": step.round,
        "empathygraph.step.retries": step.retries,
        "empathygraph.step.output": json.dumps(step.output, ensure_ascii=False),
    }
    attributes["gen_ai.tool.name" if tool else "gen_ai.agent.name"] = step.step
    if step.tokens.total:
        attributes["gen_ai.usage.input_tokens"] = step.tokens.prompt
        attributes["gen_ai.usage.output_tokens"] = step.tokens.completion
    if step.fallback:
        attributes["empathygraph.step.fallback"] = step.fallback
    return attributes


def _emit_turn(tracer: Tracer, turn: TurnResult, model: str) -> int:
    from opentelemetry import trace
    from opentelemetry.trace import Status, StatusCode

    ends = [_end_s(step) for step in turn.steps]
    begin = min(end - step.latency_s for end, step in zip(ends, turn.steps, strict=True))
    root = tracer.start_span(
        f"invoke_agent {SYSTEM}",
        start_time=_ns(begin),
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": SYSTEM,
                    "gen_ai.conversation.id": turn.session_id, "empathygraph.turn_index": turn.turn_index},
    )
    count = 1
    with trace.use_span(root, end_on_exit=False):
        for end, step in zip(ends, turn.steps, strict=True):
            operation = "execute_tool" if step.kind == "tool" else "invoke_agent"
            span = tracer.start_span(f"{operation} {step.step}", start_time=_ns(end - step.latency_s),
                                     attributes=_step_attributes(step, turn))
            with trace.use_span(span, end_on_exit=False):
                t = end - step.latency_s
                for index, attempt in enumerate(step.attempts):
                    chat = tracer.start_span(f"chat {model}", start_time=_ns(t), attributes={
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": model,
                        "gen_ai.usage.input_tokens": attempt.tokens.prompt,
                        "gen_ai.usage.output_tokens": attempt.tokens.completion,
                        "gen_ai.input.messages": json.dumps(step.prompt if index == 0 else [], ensure_ascii=False),
                        "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": attempt.raw}]),
                    })
                    if attempt.error:
                        chat.set_status(Status(StatusCode.ERROR, attempt.error))
                    t += attempt.latency_s
                    chat.end(end_time=_ns(t))
                    count += 1
            if step.error:
                span.set_status(Status(StatusCode.ERROR, step.error))
            span.end(end_time=_ns(end))
            count += 1
    root.end(end_time=_ns(max(ends)))
    return count


def export_trace(
    records: list[StepRecord],
    *,
    endpoint: str | None = None,
    exporter: SpanExporter | None = None,
    model: str = "llm",
) -> int:
    """Send a trace's records as spans; return how many were sent.

    Args:
        records: the trace's step records.
        endpoint: an OTLP/HTTP traces endpoint (default: ``OTEL_EXPORTER_OTLP_*`` environment).
        exporter: any span exporter (overrides ``endpoint``; tests pass an in-memory one).
        model: the model name put on ``chat`` spans.
    """
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    except ImportError as exc:
        raise OtelMissing("OpenTelemetry is not installed: pip install 'empathygraph[otel]'") from exc
    if exporter is None:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise OtelMissing("the OTLP exporter is not installed: pip install 'empathygraph[otel]'") from exc
        exporter = OTLPSpanExporter(endpoint=endpoint) if endpoint else OTLPSpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": SYSTEM}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer(SYSTEM)
    try:
        return sum(_emit_turn(tracer, turn, model) for turn in group_turns(records))
    finally:
        provider.shutdown()
