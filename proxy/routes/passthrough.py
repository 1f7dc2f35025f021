"""Every other OpenAI route, passed through to the upstream (see :mod:`proxy.passthrough`).

Named routes give each family its own bounded metric label (``/v1/embeddings``,
``/v1/files/{rest:path}``, ...); ``/v1/{rest:path}`` takes any route OpenAI adds later. Paths
the proxy serves itself answer 405 for other methods instead of going upstream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Callable, Coroutine
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proxy.auth import LOCAL_PRINCIPAL, Principal, require_model
from proxy.errors import InvalidRequest, PayloadTooLarge
from proxy.limits import Limits, check_request
from proxy.middleware import set_model_label
from proxy.passthrough import Forward, PassthroughService, bounded
from proxy.protocol import forwardable_headers, read_body

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
JSON_TYPE = "application/json"
# Paths served by the proxy itself; other methods on them are not relayed.
OWN_PATHS = frozenset(
    {
        "/v1/chat/completions",
        "/v1/completions",
        "/v1/responses",
        "/v1/models",
        "/v1/verify",
        "/v1/policies",
    }
)


async def passthrough(request: Request) -> Response:
    if request.url.path in OWN_PATHS:
        raise HTTPException(405)
    fwd = await read_forward(request)
    service: PassthroughService = request.app.state.passthrough
    return await service.forward(fwd)


async def read_forward(request: Request) -> Forward:
    """The request as it will travel: a JSON body read (model checked, routed, renamed), any
    other body streamed."""
    state = request.app.state
    principal: Principal = request.state.principal
    limits: Limits = state.settings.limits
    path = request.url.path.removeprefix("/v1")
    headers = forwardable_headers(request.headers)
    content_type = request.headers.get("content-type", "")
    model: str | None = None
    body: bytes | AsyncIterable[bytes] = b""
    if content_type.startswith(JSON_TYPE):
        raw = await read_body(request, state.settings.max_body_bytes)
        data = _json(raw)
        if isinstance(data, dict) and isinstance(data.get("model"), str):
            model = data["model"]
            require_model(principal, model)
            check_request(data, limits)
            set_model_label(request.scope, state.metrics.model_label(model))
            service: PassthroughService = state.passthrough
            upstream, _ = service.upstream_for(model, path)
            if upstream.model_override not in (None, model):
                raw = json.dumps({**data, "model": upstream.model_override}).encode()
        body = raw
        headers["content-type"] = content_type
    elif request.method in ("POST", "PUT", "PATCH"):
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit():
            if int(declared) > limits.max_upload_bytes:
                raise PayloadTooLarge(
                    f"upload exceeds the limit of {limits.max_upload_bytes} bytes"
                )
            headers["content-length"] = declared
        if content_type:
            headers["content-type"] = content_type
        body = bounded(request.stream(), limits.max_upload_bytes)
    return Forward(
        method=request.method,
        path=path,
        query=request.url.query.encode(),
        headers=headers,
        body=body,
        model=model,
        route_label=state.metrics.route_label(request.url.path),
        shared_tenants=principal is not LOCAL_PRINCIPAL,
    )


def _json(raw: bytes) -> object:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise InvalidRequest("request body is not valid JSON") from None


Endpoint = Callable[[Request], Coroutine[Any, Any, Response]]


def _routes(endpoint: Endpoint) -> list[Route]:
    families = ("audio", "images", "files", "batches")
    return [
        Route("/v1/embeddings", endpoint, methods=["POST"]),
        Route("/v1/moderations", endpoint, methods=["POST"]),
        *(Route(f"/v1/{name}", endpoint, methods=METHODS) for name in ("files", "batches")),
        *(Route(f"/v1/{name}/{{rest:path}}", endpoint, methods=METHODS) for name in families),
        # Last: anything else below /v1 that no route above (or elsewhere) serves.
        Route("/v1/{rest:path}", endpoint, methods=METHODS),
    ]


ROUTES = _routes(passthrough)
