"""Many machines: two server processes on one PostgreSQL; a session started on one continues on the other.

Needs the test PostgreSQL (``EMPATHYGRAPH_TEST_POSTGRES_URL``; CI starts one with
scripts/postgres_test_server.sh) and skips without it. The replicas keep their media apart,
as two machines without a shared volume would: the conversation is in the database.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.conftest import POSTGRES_URL_ENV, REPO, unique_session
from tests.serve.conftest import parse_sse

sys.path.insert(0, str(REPO / "benchmarks"))
from serve_client import free_port, serve_command, served

URL = os.environ.get(POSTGRES_URL_ENV)
pytestmark = pytest.mark.skipif(not URL, reason=f"no PostgreSQL (set {POSTGRES_URL_ENV}; scripts/postgres_test_server.sh)")


def send(url: str, session: str, text: str) -> list[tuple[str, dict]]:
    with httpx.Client(base_url=url, timeout=600) as client, \
            client.stream("POST", f"/v1/sessions/{session}/turns", json={"text": text}) as response:
        assert response.status_code == 200, response.read()
        return [(e.name, e.data) for e in parse_sse(response.iter_lines())]


def continue_across(first: str, second: str) -> None:
    session = unique_session("roaming")
    opened = send(first, session, "My dog died yesterday and the house is empty.")
    assert opened[-1][0] == "turn" and opened[0][1]["turn_index"] == 0
    continued = send(second, session, "I still expect him at the door.")
    assert continued[0] == ("started", {**continued[0][1], "turn_index": 1}), continued[0]
    assert continued[-1][0] == "turn", continued[-1]
    for url in (first, second):  # both read the conversation from the database, the traces from the shared folder
        with httpx.Client(base_url=url) as client:
            turns = client.get(f"/v1/sessions/{session}").json()["turns"]
            assert [t["user"] for t in turns] == ["My dog died yesterday and the house is empty.",
                                                  "I still expect him at the door."]
            trace = [json.loads(line) for line in client.get(f"/v1/sessions/{session}/trace").text.splitlines()]
            assert {record["turn_index"] for record in trace} == {0, 1}


@pytest.fixture
def scripted_replicas(tmp_path: Path) -> Iterator[tuple[str, str]]:
    with ExitStack() as stack:
        urls = []
        for name in ("a", "b"):
            port = free_port()
            command = [sys.executable, "-m", "tests.serve.scripted_server", str(port), "--set", f"sessions.db={URL}",
                       "--set", f"serve.media_dir={tmp_path / 'shared'}"]
            urls.append(stack.enter_context(served(command, port, ready_timeout_s=120, log=tmp_path / f"{name}.log")))
        yield urls[0], urls[1]


def test_a_session_started_on_one_replica_continues_on_the_other(scripted_replicas):
    continue_across(*scripted_replicas)


@pytest.mark.integration
def test_two_served_fast_models_share_sessions_through_postgres(tmp_path: Path):
    """The same with ``empathygraph serve`` itself and a real model (the fast preset)."""
    with ExitStack() as stack:
        urls = []
        for name in ("a", "b"):
            port = free_port()
            command = serve_command(port, f"sessions.db={URL}", f"serve.media_dir={tmp_path / 'shared'}",
                                    "serve.warm_up=false", "generators.speech=none", "generators.avatar=none",
                                    config=REPO / "configs" / "fast.yaml")
            urls.append(stack.enter_context(served(command, port, ready_timeout_s=600, log=tmp_path / f"{name}.log")))
        continue_across(*urls)
