"""ASGI middleware, all plain ``__call__(scope, receive, send)`` classes (no
``BaseHTTPMiddleware``: it buffers bodies and breaks stream cancellation).

Order, outermost first, as ``create_app`` builds it:

1. :class:`RequestContextMiddleware` -- request id, metrics, access log.
2. the ``middleware`` passed to ``create_app`` -- the slot for authentication (key -> tenant ->
   policy) and rate limits; they run inside the request id so their log lines carry it, and
   their rejections are counted.
3. Starlette's exception handlers (:func:`proxy.errors.install_error_handlers`) and routes.
"""

from __future__ import annotations

from proxy.middleware.request_context import (
    RequestContextMiddleware,
    request_id_of,
    set_model_label,
)

__all__ = ["RequestContextMiddleware", "request_id_of", "set_model_label"]
