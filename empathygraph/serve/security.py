"""Who may call the server, and how much they may send: ASGI middleware around the app.

``TokenGate``: with a token configured, every route but ``/healthz`` asks for it, as
``Authorization: Bearer <token>`` (API clients) or as the cookie the page sets when it is
opened once as ``/?token=<token>`` (a browser cannot add a header to ``<audio src>``; the
cookie is HttpOnly and SameSite=Strict, so another site cannot make a browser send it).
``BodyLimit``: a request body larger than the limit is refused before it is read in full.
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from empathygraph.serve.problems import ApiError, error_response

OPEN_PATHS = frozenset({"/healthz"})
COOKIE = "empathygraph_token"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


class TokenGate:
    """Refuse every request but ``/healthz`` that does not carry the token (401)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    def _valid(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self._token)

    def _presented(self, scope: Scope) -> str | None:
        authorization = _header(scope, b"authorization") or ""
        scheme, _, credentials = authorization.partition(" ")
        if scheme.lower() == "bearer" and credentials:
            return credentials.strip()
        cookie = SimpleCookie(_header(scope, b"cookie") or "")
        return cookie[COOKIE].value if COOKIE in cookie else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if self._valid(self._presented(scope)):
            await self.app(scope, receive, send)
            return
        offered = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
        if scope["path"] == "/" and self._valid(offered):  # the page, opened once with its token
            await send({"type": "http.response.start", "status": 303, "headers": [
                (b"location", b"/"),
                (b"set-cookie", f"{COOKIE}={offered}; HttpOnly; SameSite=Strict; Path=/".encode()),
            ]})
            await send({"type": "http.response.body", "body": b""})
            return
        response = error_response(401, "unauthorized", "this server needs its token: send 'Authorization: Bearer "
                                  "<token>', or open the page once as /?token=<token>",
                                  headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)


class BodyLimit:
    """Refuse a request body over ``max_bytes`` (413): by its declared length at once, else as it streams in."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self) -> ApiError:
        return ApiError(413, "too_large", f"the request body is over the {self.max_bytes / 1e6:g} MB limit "
                        "(serve.max_upload_mb)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            problem = self._too_large()
            await error_response(problem.status, problem.code, problem.message)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise self._too_large()
            return message

        await self.app(scope, counted, send)
