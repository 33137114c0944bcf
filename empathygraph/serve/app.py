"""The FastAPI application: the listener's HTTP API and its web page.

    GET  /healthz                                  the process is up (no token needed)
    GET  /readyz                                   200 once every model is loaded, 503 before
    GET  /                                         the web page (static/)
    POST /v1/sessions/{id}/turns                   a turn (JSON or multipart) -> its events (SSE)
    GET  /v1/sessions/{id}                         the session's history
    GET  /v1/sessions/{id}/turns/{n}               one finished turn and its media's URLs
    GET  /v1/sessions/{id}/trace                   the session's trace (JSON Lines; ?turn=n)
    GET  /v1/sessions/{id}/report                  its HTML report
    GET  /v1/sessions/{id}/media/{path}            a file of the session's own folder
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files as package_files
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from empathygraph.config import Config
from empathygraph.serve import problems
from empathygraph.serve.files import SessionFiles, check_session_id
from empathygraph.serve.gate import TurnGate
from empathygraph.serve.problems import ApiError, ErrorBody
from empathygraph.serve.security import BodyLimit, TokenGate
from empathygraph.serve.turns import TurnRunner
from empathygraph.serve.uploads import TurnReader, TurnRequest
from empathygraph.serve.wire import EVENT_TYPES, TurnData, turn_data
from empathygraph.session import Empathizer
from empathygraph.state import HistoryEntry
from empathygraph.trace.replay import group_turns
from empathygraph.trace.report import render_report
from empathygraph.trace.store import read_trace
from empathygraph.turn import TurnResult

log = logging.getLogger("empathygraph.serve")
STATIC = Path(str(package_files("empathygraph.serve") / "static"))
SERVER_CONCURRENCY = 8
REF = "#/components/schemas/{model}"
SessionId = Annotated[str, PathParam(description="1 to 64 letters, digits, '-' or '_'")]


class Health(BaseModel):
    status: str


class Readiness(BaseModel):
    ready: bool
    backbone: str
    concurrency: int
    load_seconds: dict[str, float]


class SessionView(BaseModel):
    """A session's finished turns, oldest first (the emotional trajectory)."""

    session_id: str
    turns: list[HistoryEntry]


class Listener:
    """The server's one ``Empathizer``, loaded in the background; ready once its models are."""

    def __init__(self, config: Config, empathizer: Empathizer | None) -> None:
        self.config = config
        self.files = SessionFiles(config.serve.media_root())
        self.empathizer = empathizer
        self.load_seconds: dict[str, float] = {}
        self.failure: str | None = None
        self.ready = asyncio.Event()
        default = 1 if config.backbone.kind == "embedded" else SERVER_CONCURRENCY
        self.gate = TurnGate(config.serve.concurrency or default, config.serve.max_queue)
        self.runner: TurnRunner | None = None

    def load(self) -> None:
        """Build the listener and load its models (in a worker thread); a warm-up turn if configured."""
        started = time.perf_counter()
        empathizer = self.empathizer or Empathizer(self.config)
        self.load_seconds = empathizer.prepare() if self.config.serve.warm_up else {}
        if self.config.serve.warm_up:
            self._warm_up(empathizer)
        self.load_seconds["total"] = round(time.perf_counter() - started, 3)
        self.empathizer = empathizer
        self.runner = TurnRunner(empathizer, self.gate, self.files)

    def _warm_up(self, empathizer: Empathizer) -> None:
        """Answer one private turn with media, then forget it: every lazy part has run once."""
        session = f"warm-up-{uuid.uuid4().hex[:12]}"
        started = time.perf_counter()
        try:
            for _ in empathizer.events("I had a long day at work and I feel tired.", session_id=session,
                                       out_dir=self.files.turn_dir(session, 0)):
                pass
        finally:
            empathizer.forget(session)
        self.load_seconds["warm_up_turn"] = round(time.perf_counter() - started, 3)

    def require(self) -> tuple[Empathizer, TurnRunner]:
        """The loaded listener, or 503."""
        if self.failure is not None:
            raise ApiError(503, "not_ready", f"the server failed to load its models: {self.failure}")
        if not self.ready.is_set() or self.empathizer is None or self.runner is None:
            raise ApiError(503, "not_ready", "the server is still loading its models; see /readyz",
                           headers={"Retry-After": "5"})
        return self.empathizer, self.runner


def _sse_schema() -> dict[str, Any]:
    events = ", ".join(EVENT_TYPES)
    return {"description": f"Server-Sent Events, one per turn event ({events}); each data field is JSON with "
                           "'t', the seconds since the turn was received. The last is 'turn' (or 'error').",
            "content": {"text/event-stream": {"schema": {"type": "string"}}}}


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, plus the JSON turn request and every SSE event's payload as components."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes,
                             description="Errors are JSON: {\"error\": {\"code\", \"message\"}}.")
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in (TurnRequest, *EVENT_TYPES.values()):
            found = model.model_json_schema(ref_template=REF)
            components.update(found.pop("$defs", {}))
            components[model.__name__] = found
        schema["x-turn-events"] = {name: {"$ref": REF.format(model=model.__name__)} for name, model in EVENT_TYPES.items()}
        app.openapi_schema = schema
    return app.openapi_schema


def create_app(config: Config | None = None, *, empathizer: Empathizer | None = None) -> FastAPI:
    """The server's application.

    Args:
        config: the run configuration (its ``serve`` section: token, limits, media folder, concurrency).
        empathizer: a ready-made listener (tests, custom graphs); default: built from ``config``.
    """
    config = config or Config()
    listener = Listener(config, empathizer)
    reader = TurnReader(listener.files, config.serve)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def load() -> None:
            try:
                await run_in_threadpool(listener.load)
                listener.ready.set()
                log.info("ready: %s", listener.load_seconds)
            except Exception as exc:  # noqa: BLE001 - reported by /readyz and every turn
                listener.failure = f"{type(exc).__name__}: {exc}"
                log.error("loading failed: %s", listener.failure)

        loading = asyncio.create_task(load())
        yield
        loading.cancel()
        if listener.empathizer is not None:
            listener.empathizer.close()

    app = FastAPI(title="empathygraph", summary="An empathetic listener over HTTP: a turn in, its reasoning, "
                  "words, voice and face out as they are made.", version="0.1.0", lifespan=lifespan,
                  responses={401: {"model": ErrorBody}, 422: {"model": ErrorBody}})
    problems.install(app)
    app.state.listener = listener

    @app.get("/healthz", tags=["server"])
    async def healthz() -> Health:
        """The process is up (no token needed)."""
        return Health(status="ok")

    @app.get("/readyz", tags=["server"], responses={503: {"model": ErrorBody}})
    async def readyz() -> Readiness:
        """Ready once every model is loaded: a turn then starts at once."""
        empathizer, _ = listener.require()
        return Readiness(ready=True, backbone=empathizer.backbone.name, concurrency=listener.gate.capacity,
                         load_seconds=listener.load_seconds)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.post("/v1/sessions/{session_id}/turns", tags=["turns"], response_class=EventSourceResponse,
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {"$ref": REF.format(model="TurnRequest")}},
                  "multipart/form-data": {"schema": {"type": "object", "properties": {
                      "text": {"type": "string"}, "profile": {"type": "string", "description": "AvatarProfile JSON"},
                      "media": {"type": "boolean"}, "audio": {"type": "string", "format": "binary"},
                      "image": {"type": "string", "format": "binary"}, "video": {"type": "string", "format": "binary"},
                  }}}}}},
              responses={200: _sse_schema(), **{code: {"model": ErrorBody} for code in (400, 409, 413, 415, 429, 503)}})
    async def post_turn(session_id: SessionId, request: Request) -> EventSourceResponse:
        """Answer one turn: text, an audio recording, an image or a video, as JSON or multipart.

        The answer streams as it is made: steps starting and finishing with their parsed outputs,
        the reply's tokens, each spoken sentence's audio, the avatar video, the finished turn.
        """
        received = time.perf_counter()
        check_session_id(session_id)
        _, runner = listener.require()
        turn, media = await reader.read(request, session_id)
        return EventSourceResponse(runner.stream(session_id, turn, media=media, received=received), ping=10)

    async def finished_turns(session_id: str) -> list[TurnResult]:
        # Each finished turn's trace is a file of the session's folder (shared by replicas), not in the
        # session store: the store keeps only a session's latest checkpoint.
        listener.require()
        traces = listener.files.traces(check_session_id(session_id))
        turns = await run_in_threadpool(lambda: group_turns(r for path in traces for r in read_trace(path)[0]))
        if not turns:
            raise ApiError(404, "unknown_session", f"no session {session_id} (it has no finished turn)")
        return turns

    @app.get("/v1/sessions/{session_id}", tags=["sessions"], responses={404: {"model": ErrorBody}})
    async def get_session(session_id: SessionId) -> SessionView:
        """The session's finished turns, oldest first: what was said and the emotion read in it."""
        empathizer, _ = listener.require()
        history = await run_in_threadpool(empathizer.history, check_session_id(session_id))
        if not history:
            raise ApiError(404, "unknown_session", f"no session {session_id} (it has no finished turn)")
        return SessionView(session_id=session_id, turns=history)

    @app.get("/v1/sessions/{session_id}/turns/{turn_index}", tags=["sessions"], responses={404: {"model": ErrorBody}})
    async def get_turn(session_id: SessionId, turn_index: int) -> TurnData:
        """One finished turn: the plan, the reasoning behind it, and its media's URLs."""
        for turn in await finished_turns(session_id):
            if turn.turn_index == turn_index:
                return turn_data(turn, listener.files)
        raise ApiError(404, "unknown_turn", f"session {session_id} has no finished turn {turn_index}")

    @app.get("/v1/sessions/{session_id}/trace", tags=["sessions"], response_class=Response,
             responses={200: {"content": {"application/jsonl": {}}}, 404: {"model": ErrorBody}})
    async def get_trace(session_id: SessionId, turn: Annotated[int | None, Query(ge=0)] = None) -> Response:
        """The session's trace: one step record per line (JSON Lines), every turn or only ``turn``."""
        turns = [t for t in await finished_turns(session_id) if turn is None or t.turn_index == turn]
        if not turns:
            raise ApiError(404, "unknown_turn", f"session {session_id} has no finished turn {turn}")
        lines = "".join(step.model_dump_json() + "\n" for t in turns for step in t.steps)
        return Response(lines, media_type="application/jsonl")

    @app.get("/v1/sessions/{session_id}/report", tags=["sessions"], response_class=HTMLResponse,
             responses={404: {"model": ErrorBody}})
    async def get_report(session_id: SessionId) -> HTMLResponse:
        """The session's HTML report: every step, the emotional trajectory, the media."""
        turns = await finished_turns(session_id)
        source = listener.files.session_dir(session_id) / "trace.jsonl"
        html = await run_in_threadpool(render_report, [s for t in turns for s in t.steps], source=source)
        return HTMLResponse(html)

    @app.get("/v1/sessions/{session_id}/media/{path:path}", tags=["sessions"], response_class=FileResponse,
             responses={404: {"model": ErrorBody}})
    async def get_media(session_id: SessionId, path: str) -> FileResponse:
        """A file of the session's own folder: an upload, a spoken sentence, the reply's audio or video."""
        return FileResponse(listener.files.resolve(session_id, path))

    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    app.add_middleware(BodyLimit, max_bytes=int(config.serve.max_upload_mb * 1e6))
    if config.serve.token:
        app.add_middleware(TokenGate, token=config.serve.token)
    if config.serve.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=config.serve.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])
    return app

