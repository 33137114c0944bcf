"""A tiny OpenAI-compatible server in a thread, for tests that stop and restart "the model server"."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = {"reply": "That sounds so hard. I'm here with you."}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so a restart leaves the client's pooled connections dead

    def setup(self) -> None:
        super().setup()
        self.server.connections.add(self.connection)  # type: ignore[attr-defined]

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _send(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests += 1  # type: ignore[attr-defined]
        self._send({
            "id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(REPLY)}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
        })


class FakeServer:
    """Serves on 127.0.0.1:``port`` (0: any free port) until ``stop``; ``start`` again on the same port."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.requests = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeServer:
        server = ThreadingHTTPServer(("127.0.0.1", self.port), _Handler)
        server.requests = 0  # type: ignore[attr-defined]
        server.connections = set()  # type: ignore[attr-defined]
        server.daemon_threads = True
        self.port = server.server_address[1]
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self.requests += self._server.requests  # type: ignore[attr-defined]
            self._server.shutdown()
            self._server.server_close()
            for connection in self._server.connections:  # type: ignore[attr-defined]
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                connection.close()
            self._server = None
