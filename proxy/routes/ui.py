"""``GET /ui``: the playground page (see :mod:`proxy.ui`). Public: it holds no data, and the
API calls it makes carry the key the user types."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from proxy.ui import playground


async def ui_page(request: Request) -> HTMLResponse:
    page = playground()
    return HTMLResponse(page.html, headers=page.headers)


ROUTES = [Route("/ui", ui_page, methods=["GET"])]
