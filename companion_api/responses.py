"""Answers the routes share: the state, made once a change, sent as it is; a write's answer
with the alerts it raised; a log as JSON Lines to download."""

from __future__ import annotations

from fastapi.responses import PlainTextResponse, Response

from tracker.rules import Alert, Event

from .session import Session


def state_response(session: Session) -> Response:
    return Response(session.state_json, media_type="application/json")


def with_state(session: Session, raised: list[Alert]) -> Response:
    """A write's answer: the alerts it raised and the new state."""
    raised_json = ",".join(a.model_dump_json() for a in raised)
    return Response(f'{{"raised":[{raised_json}],"state":{session.state_json}}}',
                    media_type="application/json")


def jsonl(game: str | None, events: list[Event]) -> PlainTextResponse:
    name = f"hearthtop-{game or 'empty'}.jsonl"
    return PlainTextResponse("".join(e.to_json() + "\n" for e in events),
                             media_type="application/x-ndjson",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})
