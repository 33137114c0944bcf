"""Many sessions at once against a real server process: no errors, and every history holds only its own turns."""

from __future__ import annotations

import sys

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from serve_client import free_port, served
from serve_load import load


def test_concurrent_clients_each_keep_their_own_session(tmp_path):
    port = free_port()
    command = [sys.executable, "-m", "tests.serve.scripted_server", str(port), "--set",
               f"sessions.db={tmp_path / 'sessions.sqlite'}", "--set", f"serve.media_dir={tmp_path}",
               "--set", "serve.concurrency=4"]
    with served(command, port, ready_timeout_s=120, log=tmp_path / "server.log") as url:
        report = load(url, clients=8, turns=6, tag="load")
    assert report["errors"] == 0, report["error_messages"]
    assert report["sessions_hold_only_their_own_turns"], report["mismatched_sessions"]
    assert report["turns"] == 48 and report["latency_p95_seconds"] is not None
