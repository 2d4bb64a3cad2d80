"""The pages: the phone's scorekeeper, the OBS overlay, the watch page and the camera setup,
and their scripts and styles (checked at each load: a phone never keeps old code after an
upgrade)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from ..security import PAGE_POLICY

PAGES = Path(__file__).resolve().parents[1] / "pages"
PAGE_HEADERS = {"Cache-Control": "no-cache", "Content-Security-Policy": PAGE_POLICY}
# the overlay page says whether the server shows it the secrets (`run --overlay-secrets`),
# so that it asks GET /api/overlay/secrets only then (else a 404 in the browser's console)
OVERLAY_SECRETS = ('<meta name="overlay-secrets" content="off">',
                   '<meta name="overlay-secrets" content="on">')

router = APIRouter(include_in_schema=False)


class Static(StaticFiles):
    """The pages' scripts and styles, revalidated at each load (they are small, and a 304
    costs nothing)."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


def static_files() -> Static:
    return Static(directory=PAGES / "static")


def _page(name: str) -> Callable[[], Any]:
    async def page() -> FileResponse:
        return FileResponse(PAGES / name, media_type="text/html", headers=PAGE_HEADERS)
    return page


@router.get("/overlay")
async def overlay(request: Request) -> HTMLResponse:
    html = (PAGES / "overlay.html").read_text(encoding="utf-8")
    if request.app.state.overlay_secrets:
        html = html.replace(*OVERLAY_SECRETS)
    return HTMLResponse(html, headers=PAGE_HEADERS)


for _route, _name in (("/", "phone.html"), ("/watch", "watch.html"),
                      ("/setup", "setup.html")):
    router.add_api_route(_route, _page(_name))
