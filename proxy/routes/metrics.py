"""``GET /metrics``: Prometheus text format from the app's own registry."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


async def metrics(request: Request) -> Response:
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE_LATEST)


ROUTES = [Route("/metrics", metrics, methods=["GET"])]
