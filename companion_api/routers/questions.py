"""What the camera could not decide: its questions, and a person's answers, which go back to
the camera's tracker (the log is rewritten from that point, and every page follows)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from tracker.camera import Answer

from ..dependencies import WRITES, TableDep
from ..responses import with_state
from ..session import Refused

router = APIRouter(prefix="/api/questions")


@router.get("", summary="What the camera could not decide")
async def get_questions(table: TableDep) -> list[dict[str, Any]]:
    return await table.change(table.session.pending)


@router.post("/{question}", dependencies=WRITES, summary="Answer an open question")
async def post_answer(table: TableDep, question: int, choice: Answer) -> Response:
    asked = table.session.questions.get(question)
    if asked is None or table.feed is None:
        raise Refused(404, f"there is no open question {question}")
    if choice.option >= len(asked.options):
        raise Refused(422, f"question {question} has {len(asked.options)} options "
                           f"(0 to {len(asked.options) - 1})")
    table.feed.answer(question, choice.option)
    return with_state(table.session, [])
