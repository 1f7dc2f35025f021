"""``GET /ui``: the playground page, ``GET /ui/review``: the reviewers' page (see
:mod:`proxy.ui`). Public: they hold no data, and the API calls they make carry the key the user
types (the review API answers only keys with the ``reviewer`` role)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from proxy.ui import Page, playground, review_page


def _serve(page: Page) -> HTMLResponse:
    return HTMLResponse(page.html, headers=page.headers)


async def ui_page(request: Request) -> HTMLResponse:
    return _serve(playground())


async def ui_review(request: Request) -> HTMLResponse:
    return _serve(review_page())


ROUTES = [
    Route("/ui", ui_page, methods=["GET"]),
    Route("/ui/review", ui_review, methods=["GET"]),
]
