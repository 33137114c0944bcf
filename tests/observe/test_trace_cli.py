"""``empathygraph trace …`` and ``empathygraph graph``: what a person sees, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from empathygraph.cli import app
from tests.observe.conftest import run_session

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich wraps at 80 columns off a terminal; tests read whole lines."""
    from empathygraph import cli as cli_module

    for console in (cli_module.console, cli_module.err_console):
        monkeypatch.setattr(console, "_width", 220)


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_show_prints_turns_agents_and_decisions(session_trace: Path):
    code, out = cli("trace", "show", session_trace)
    assert code == 0
    for expected in ("turn 1", "turn 2", "emotion_cause", "emotion: sad (sadness, from llm)", 'cause: "my dog died"',
                     "strategy: Reflection of feelings", "goal: comfort them", "verdict: revise", "round 1",
                     "tok", "listener:"):
        assert expected in out, expected


def test_show_filters_by_agent_and_turn(session_trace: Path):
    code, out = cli("trace", "show", session_trace, "--agent", "reflection", "--turn", "2")
    assert code == 0 and "turn 2" in out and "turn 1" not in out
    assert "reflection" in out and "emotion_cause" not in out
    code, out = cli("trace", "show", session_trace, "--agent", "nobody")
    assert code == 2 and "no step matches --agent 'nobody'" in out and "emotion_cause" in out


def test_show_json_prints_one_record_per_line(session_trace: Path):
    code, out = cli("trace", "show", session_trace, "--json", "--agent", "empathy_strategy")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(records) == 2
    assert {r["step"] for r in records} == {"empathy_strategy"} and records[0]["output"]["strategy"]


def test_show_of_a_damaged_trace_prints_what_it_read_and_names_the_line(session_trace: Path):
    text = session_trace.read_text().splitlines()
    session_trace.write_text("\n".join(text[:-1] + [text[-1][:40]]))
    code, out = cli("trace", "show", session_trace)
    assert code == 2
    assert "turn 1" in out and "turn 2" in out
    assert f"trace.jsonl:{len(text)}: not JSON" in out


def test_not_a_trace_is_one_clear_line(tmp_path: Path):
    scenario = tmp_path / "grief.yaml"
    scenario.write_text("name: grief\nturns:\n  - text: hello\n")
    for command in ("show", "report"):
        code, out = cli("trace", command, scenario)
        assert code == 2 and out.strip().startswith("error:") and "is not a trace" in out
        assert len(out.strip().splitlines()) == 1


def test_diff_pairs_steps_and_shows_what_changed(tmp_path: Path, session_trace: Path):
    other = tmp_path / "other"
    run_session(other, ["Yesterday my dog died and the house is empty."],
                StrategyDraft={"goal": "ask about him", "strategy": "Question", "rationale": "invite the story"})
    code, out = cli("trace", "diff", session_trace, other)
    assert code == 0
    assert "strategy: Reflection of feelings" in out and "strategy: Question" in out
    assert "turn 2" in out and "(ran)" in out  # the second run has no second turn
    code, same = cli("trace", "diff", session_trace, session_trace)
    assert code == 0 and "0 step(s) differ" in same


def test_trace_graph_exports_reasoning(tmp_path: Path, session_trace: Path):
    code, _ = cli("trace", "graph", session_trace, "--turn", "2", "-o", tmp_path / "r.graphml")
    assert code == 0
    graph = nx.read_graphml(tmp_path / "r.graphml")
    kinds = {data["kind"] for _, data in graph.nodes(data=True)}
    assert {"emotion", "cause", "goal", "strategy", "reply", "critique"} <= kinds
    relations = {data["relation"] for *_, data in graph.edges(data=True)}
    assert relations == {"supports", "revises"}
    code, _ = cli("trace", "graph", session_trace, "-o", tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and data["nodes"] and data["edges"]


@pytest.mark.parametrize("fmt", ["png", "graphml"])
def test_graph_command_writes_the_agent_graph(tmp_path: Path, fmt: str):
    out = tmp_path / f"g.{fmt}"
    code, _ = cli("graph", "--format", fmt, "-o", out)
    assert code == 0 and out.stat().st_size > 1000
    if fmt == "png":
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        graph = nx.read_graphml(out)
        assert {"perception", "emotion_cause", "reflection", "render"} <= set(graph.nodes)
        assert graph.edges["reflection", "response"]["conditional"] is True


def test_graph_command_prints_mermaid():
    code, out = cli("graph")
    assert code == 0 and "emotion_cause" in out and "-.->" in out  # conditional routes are dotted
