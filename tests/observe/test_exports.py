"""Exports for other tools: the reasoning graph, OpenTelemetry GenAI spans, LangGraph Studio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathygraph.trace.reasoning import reasoning_graph
from empathygraph.trace.replay import group_turns
from empathygraph.trace.store import read_trace
from tests.conftest import REPO, make_empathizer


def test_reasoning_graph_links_cues_to_reply_and_records_the_revision(session_trace: Path):
    first, second = group_turns(read_trace(session_trace)[0])
    graph = reasoning_graph(second)
    assert graph.edges["cause:0", "emotion"]["relation"] == "supports"
    assert graph.edges["emotion", "goal"]["relation"] == "supports"
    assert graph.edges["goal", "strategy"]["relation"] == "supports"
    assert graph.edges["critique:0", "reply:1"]["relation"] == "revises"
    assert graph.edges["reply:0", "reply:1"]["relation"] == "revises"
    assert graph.edges["critique:1", "reply:1"]["relation"] == "supports"  # the accepted draft
    assert graph.nodes["strategy"]["text"] == "Reflection of feelings"
    assert "reply:1" not in reasoning_graph(first)


def test_otel_spans_follow_genai_conventions(session_trace: Path):
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from empathygraph.trace.otel import export_trace

    records, _ = read_trace(session_trace)
    exporter = InMemorySpanExporter()
    count = export_trace(records, exporter=exporter, model="scripted")
    spans = exporter.get_finished_spans()
    assert count == len(spans)
    roots = [s for s in spans if s.parent is None]
    assert [s.name for s in roots] == ["invoke_agent empathygraph"] * 2
    by_name = {s.name: s for s in spans}
    agent = by_name["invoke_agent emotion_cause"]
    assert agent.attributes["gen_ai.agent.name"] == "emotion_cause"
    assert agent.attributes["gen_ai.conversation.id"] == "observed"
    assert by_name["execute_tool read"].attributes["gen_ai.operation.name"] == "execute_tool"
    chats = [s for s in spans if s.name == "chat scripted"]
    assert chats and all(s.attributes["gen_ai.usage.output_tokens"] > 0 for s in chats)
    assert sum(s.attributes["gen_ai.usage.input_tokens"] for s in chats) == sum(r.tokens.prompt for r in records)
    parents = {s.context.span_id: s for s in spans}
    assert all(parents[s.parent.span_id].name.startswith("invoke_agent ") for s in chats)
    for span in spans:
        assert span.start_time <= span.end_time


def test_langgraph_json_names_a_graph_that_studio_can_run(monkeypatch: pytest.MonkeyPatch):
    config = json.loads((REPO / "langgraph.json").read_text())
    module, _, name = config["graphs"]["empathygraph"].partition(":")
    assert (REPO / module).is_file() and name == "graph"

    from empathygraph import studio

    context = make_empathizer().context(None)
    monkeypatch.setattr(studio, "_context", lambda overrides=(): context)
    # Studio sends JSON and no context; the graph fills in both
    out = studio.graph.invoke({"session_id": "studio", "turn": {"text": "My dog died yesterday."}},
                              {"configurable": {"thread_id": "studio"}})
    assert out["response"].text and out["emotion"].emotion.value == "sad"
    assert "emotion_cause" in studio.graph.get_graph().draw_mermaid()
