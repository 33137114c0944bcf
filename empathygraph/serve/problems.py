"""Errors as JSON: ``{"error": {"code": ..., "message": ...}}`` with the status that fits."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from empathygraph.errors import EmpathyGraphError, InputError


class ApiError(Exception):
    """An error a client can act on: an HTTP status, a stable code and a clear message."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


class Problem(BaseModel):
    """What went wrong."""

    code: str
    message: str


class ErrorBody(BaseModel):
    """Every error response."""

    error: Problem


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=Problem(code=code, message=message))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


HTTP_CODES = {400: "bad_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
              413: "too_large", 415: "unsupported_media_type", 422: "invalid", 429: "busy", 503: "not_ready"}


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` as JSON."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(InputError)
    async def _input_error(request: Request, exc: InputError) -> JSONResponse:
        return error_response(422, "bad_input", str(exc))

    @app.exception_handler(EmpathyGraphError)
    async def _library_error(request: Request, exc: EmpathyGraphError) -> JSONResponse:
        return error_response(400, "bad_request", str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'] if p != 'body') or 'body'}: {err['msg']}" for err in exc.errors()
        )
        return error_response(422, "invalid", problems or "the request is not valid")

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        code = HTTP_CODES.get(exc.status_code, "error")
        return error_response(exc.status_code, code, str(exc.detail), getattr(exc, "headers", None))
