"""The API's own pages, `/docs` (Swagger UI) and `/redoc`, under a content policy of their
own: their code comes from the CDN FastAPI names, and their one inline script runs only
because the policy names its hash, so nothing else slipped into the page could."""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import APIRouter
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)

TITLE = "Hearthtop Companion API"
OPENAPI = "/openapi.json"
CDN = "https://cdn.jsdelivr.net"
INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def _policy(page: bytes) -> str:
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
                      for body in INLINE_SCRIPT.findall(page))
    # styles: both UIs set them inline as they draw; no script can come in through CSS
    return (f"default-src 'none'; script-src {CDN} {hashes}; worker-src blob:; "
            f"style-src {CDN} https://fonts.googleapis.com 'unsafe-inline'; "
            "font-src https://fonts.gstatic.com; img-src 'self' data: https:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def _page(answer: HTMLResponse) -> HTMLResponse:
    return HTMLResponse(answer.body, headers={"Content-Security-Policy": _policy(answer.body)})


@router.get("/docs")
async def swagger() -> HTMLResponse:
    return _page(get_swagger_ui_html(openapi_url=OPENAPI, title=TITLE))


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    return _page(get_redoc_html(openapi_url=OPENAPI, title=TITLE))
