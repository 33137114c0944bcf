"""A server backbone answers several turns at once: ``empathygraph serve`` on the CI's vLLM server."""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO
from tests.serve.conftest import parse_sse

sys.path.insert(0, str(REPO / "benchmarks"))
from serve_client import free_port, serve_command, served

pytestmark = [pytest.mark.integration, pytest.mark.vllm]


def turn(url: str, session: str, text: str) -> tuple[float, float, list[str]]:
    """(when it started, when it ended, its event names), in seconds of the monotonic clock."""
    with httpx.Client(base_url=url, timeout=600) as client, \
            client.stream("POST", f"/v1/sessions/{session}/turns", json={"text": text}) as response:
        assert response.status_code == 200, response.read()
        names, began = [], None
        for event in parse_sse(response.iter_lines()):
            names.append(event.name)
            if event.name == "started":
                began = time.monotonic()
        return began, time.monotonic(), names


def test_served_turns_run_side_by_side_on_a_server_backbone(vllm_url: str, tmp_path: Path):
    model = httpx.get(f"{vllm_url}/models", timeout=10).json()["data"][0]["id"]
    port = free_port()
    command = serve_command(port, "backbone.kind=openai", f"backbone.base_url={vllm_url}", f"backbone.model={model}",
                            "backbone.repeat_penalty=1.15", f"sessions.db={tmp_path / 'sessions.sqlite'}",
                            f"serve.media_dir={tmp_path}", "serve.warm_up=false", "generators.speech=none",
                            "generators.avatar=none")
    with served(command, port, ready_timeout_s=600, log=tmp_path / "serve.log") as url:
        assert httpx.get(f"{url}/readyz").json()["concurrency"] == 8
        texts = ["My dog died yesterday and the house is empty.", "I failed my driving test for the third time."]
        with ThreadPoolExecutor(2) as pool:
            (a_start, a_end, a_events), (b_start, b_end, b_events) = pool.map(
                lambda args: turn(url, *args), [("one", texts[0]), ("two", texts[1])])
    assert a_events[-1] == "turn" and b_events[-1] == "turn", (a_events[-3:], b_events[-3:])
    assert "queued" not in a_events and "queued" not in b_events
    assert a_start < b_end and b_start < a_end, "the two turns overlapped in time"
