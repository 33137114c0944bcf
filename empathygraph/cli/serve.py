"""``empathygraph serve``: the listener over HTTP (API + web page), its models loaded once."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import ValidationError

from empathygraph.cli.common import ConfigOption, SetOption, console, fail, run_config
from empathygraph.config import describe_validation_error
from empathygraph.errors import EmpathyGraphError
from empathygraph.graphs.postgres_sessions import redact
from empathygraph.serve.config import ServeConfig


def serve(
    config: ConfigOption = None,
    overrides: SetOption = None,
    host: Annotated[str, typer.Option("--host", help="address to listen on (0.0.0.0: every interface)")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="port to listen on")] = 8000,
    token: Annotated[str | None, typer.Option(
        "--token", envvar="EMPATHYGRAPH_TOKEN", show_envvar=True,
        help="ask every request but /healthz for this bearer token (also serve.token)")] = None,
) -> None:
    """Serve the listener over HTTP: the web page at /, the API under /v1, models loaded once."""
    try:
        import uvicorn

        from empathygraph.serve.app import create_app
    except ImportError as exc:  # pragma: no cover - depends on the install
        fail(f"serving needs {exc.name}: pip install 'fastapi' 'uvicorn' 'sse-starlette' 'python-multipart'")
    try:
        cfg = run_config(config, overrides)
        if token:
            cfg.serve = ServeConfig.model_validate({**cfg.serve.model_dump(), "token": token})
    except EmpathyGraphError as exc:
        fail(str(exc))
    except ValidationError as exc:
        fail(describe_validation_error(exc, "--token"))
    where = f"http://{host}:{port}/"
    guarded = " (token required: open the page once as /?token=...)" if cfg.serve.token else ""
    console.print(f"[bold]empathygraph serve[/bold] · {where}{guarded} · sessions: {redact(cfg.session_db())} · "
                  "loading models (see /readyz)", highlight=False)
    uvicorn.run(create_app(cfg), host=host, port=port, log_level="info", timeout_graceful_shutdown=5)
