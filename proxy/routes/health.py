"""``GET /healthz`` (the process answers) and ``GET /readyz`` (it can serve traffic).

Readiness: the lifespan finished starting (the upstream client is open) and every readiness
check passed to ``create_app(readiness_checks=...)`` returns None (a check returns a short
reason when not ready, e.g. "evidence index loading").
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    state = request.app.state
    if not getattr(state, "ready", False):
        return JSONResponse({"status": "starting"}, status_code=503)
    reasons = [reason for check in state.readiness_checks if (reason := await check())]
    if reasons:
        return JSONResponse({"status": "not_ready", "reasons": reasons}, status_code=503)
    return JSONResponse({"status": "ready"})


ROUTES = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
]
