"""A refused request is a 4xx with one sentence in `{"detail": …}`, never a traceback; a bug
is a 500 that says the game is unchanged."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from tracker.rules import LogError, parse_event

from .security import with_security_headers
from .session import Refused


def _sentence(error: RequestValidationError) -> str:
    """The first thing wrong with a request, in one sentence."""
    first = error.errors()[0]
    if first["type"] == "json_invalid":
        return "the body is not valid JSON"
    where = ".".join(str(p) for p in first["loc"] if p != "body")
    if not where and first["type"] in ("model_attributes_type", "dict_type"):
        return "the body must be a JSON object"
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _event_sentence(error: RequestValidationError) -> str:
    """An event's own checks say best what is wrong with it."""
    if error.errors()[0]["type"] == "json_invalid":
        return "the body is not valid JSON"
    if not isinstance(error.body, dict):
        return "an event must be a JSON object"
    try:
        parse_event(error.body)
    except LogError as problem:
        return str(problem)
    return _sentence(error)


async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
    explain = _event_sentence if request.url.path == "/api/events" else _sentence
    return JSONResponse({"detail": explain(error)}, status_code=422)


async def _refused(request: Request, error: Refused) -> JSONResponse:
    return JSONResponse({"detail": error.detail}, status_code=error.status)


async def _http(request: Request, error: StarletteHTTPException) -> JSONResponse:
    detail = error.detail
    if error.status_code == 404 and detail == "Not Found":
        detail = f"there is nothing at {request.url.path}"
    return JSONResponse({"detail": detail}, status_code=error.status_code,
                        headers=error.headers)


async def _bug(request: Request, error: Exception) -> JSONResponse:
    # answered from outside every middleware (Starlette's last resort): the security
    # headers are this answer's own
    answer = JSONResponse({"detail": f"the server failed ({type(error).__name__}); the "
                                     "game is unchanged"}, status_code=500)
    for name, value in with_security_headers([]):
        answer.headers[name.decode()] = value.decode()
    return answer


def add_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(Refused, _refused)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _bug)
