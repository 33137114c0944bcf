"""A served listener with a scripted model: an app in a test client, and SSE read back as events."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from empathygraph.config import Config
from empathygraph.serve.app import create_app
from tests.conftest import REPO, make_empathizer, scripted, test_config

MEDIA = REPO / "examples" / "scenarios" / "media"


@dataclass
class Event:
    """One Server-Sent Event: its name and its JSON data."""

    name: str
    data: dict[str, Any]


def parse_sse(lines: Iterator[str]) -> Iterator[Event]:
    """Events from the lines of an SSE stream (comments and pings skipped)."""
    name, data = "message", []
    for line in lines:
        if line == "":
            if data:
                yield Event(name, json.loads("\n".join(data)))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


def serve_config(tmp_path: Path, *, generators: dict[str, Any] | None = None, **serve: Any) -> Config:
    """The unit-test config with a ``serve`` section: files under ``tmp_path``, no warm-up, 2 turns at once."""
    return test_config(serve={"media_dir": str(tmp_path / "media"), "warm_up": False, "concurrency": 2, **serve},
                       **({"generators": generators} if generators else {}))


def ready_client(config: Config, empathizer=None) -> TestClient:
    """A started test client whose listener is ready (the caller closes it)."""
    client = TestClient(create_app(config, empathizer=empathizer or make_empathizer(scripted(), config)))
    client.__enter__()
    headers = {"Authorization": f"Bearer {config.serve.token}"} if config.serve.token else {}
    for _ in range(200):
        if client.get("/readyz", headers=headers).status_code == 200:
            return client
        time.sleep(0.05)
    raise AssertionError("the server never became ready")


def turn_events(client: TestClient, session: str, headers: dict[str, str] | None = None, **request: Any) -> list[Event]:
    """POST one turn and read its events to the end (raises on a non-200 answer)."""
    with client.stream("POST", f"/v1/sessions/{session}/turns", headers=headers, **request) as response:
        assert response.status_code == 200, response.read()
        return list(parse_sse(response.iter_lines()))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    test_client = ready_client(serve_config(tmp_path))
    yield test_client
    test_client.__exit__(None, None, None)
