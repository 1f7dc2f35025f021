"""Request id in and out, metrics and one JSON access-log line per request (plain ASGI).

The id is the client's ``X-Request-Id`` when it is short and safe, else a fresh one; it is set
on :data:`proxy.logs.request_id_var` for every log line of the request and returned in the
response's ``X-Request-Id``. Duration runs to the last body byte, so a stream counts whole.
The chat route names the model for the labels through :func:`set_model_label`.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from proxy.logs import request_id_var
from proxy.metrics import Metrics

REQUEST_ID_HEADER = b"x-request-id"
_SAFE_ID = re.compile(rb"^[A-Za-z0-9._:\-]{1,128}$")
_MODEL_KEY = "veriproxy.model_label"
_ROUTE_KEY = "veriproxy.route"

access_log = logging.getLogger("veriproxy.access")


def set_model_label(scope: Scope, label: str) -> None:
    # In scope["state"], which inner middleware share even when they copy the scope (auth does).
    scope.setdefault("state", {})[_MODEL_KEY] = label


def request_id_of(scope: Scope) -> str:
    return str(scope.get("veriproxy.request_id", ""))


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_id(scope) or uuid.uuid4().hex
        scope["veriproxy.request_id"] = request_id
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500
        scope.setdefault("state", {})  # shared with inner middleware: auth puts the principal here
        route = self.metrics.route_label(scope.get("path", ""))
        inflight = self.metrics.inflight.labels(route)
        inflight.inc()

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [h for h in message.get("headers", []) if h[0] != REQUEST_ID_HEADER]
                headers.append((REQUEST_ID_HEADER, request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            inflight.dec()
            elapsed = time.perf_counter() - started
            model = str(scope["state"].get(_MODEL_KEY, "")) or "none"
            method = scope.get("method", "")
            tenant = self.metrics.tenant_label(_tenant(scope))
            self.metrics.requests.labels(route, model, tenant, str(status)).inc()
            self.metrics.duration.labels(route, model).observe(elapsed)
            access_log.info(
                "request",
                extra={
                    "fields": {
                        "method": method,
                        "path": route,
                        "status": status,
                        "model": model,
                        "duration_ms": round(elapsed * 1000, 3),
                    }
                },
            )
            request_id_var.reset(token)


def _tenant(scope: Scope) -> str | None:
    """The caller's tenant (set by the auth middleware, inside this one), if it ran."""
    principal = scope.get("state", {}).get("principal")
    return None if principal is None else str(principal.tenant)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == REQUEST_ID_HEADER and _SAFE_ID.match(value):
            return bytes(value).decode()
    return None
