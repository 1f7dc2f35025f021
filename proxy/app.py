"""The app factory: ``create_app(settings, *, transport=None, extensions=..., middleware=...)``.

Dependencies come in as arguments (nothing heavy happens at import): ``transport`` replaces the
httpx transport (tests may pass ``httpx.MockTransport``; most use a real local emulator),
``extensions`` plugs request preparers / stream transformers / response finalisers into the
chat service (see :mod:`proxy.extensions`), ``middleware`` is the slot for plain-ASGI auth and
rate limiting, and ``readiness_checks`` feed ``/readyz``.

The lifespan opens the pooled httpx transport and closes it (and every upstream) on shutdown.
While running, ``app.state`` holds ``settings``, ``metrics``, ``router``, ``chat_service``,
``passthrough`` (the :class:`~proxy.passthrough.PassthroughService` of the other routes),
``dialects`` (:class:`~proxy.dialect_service.DialectService`: completions and responses),
``readiness_checks``, ``ready``, ``policies`` (the :class:`~policies.PolicyStore`, or None),
``shared`` (:class:`proxy.runtime.SharedState`: caches,
rate limiter, replica notices, audit log) and ``recorder`` (call
``recorder.record_response(outcome)`` once a response's outcome is final).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial

import httpx
from starlette.applications import Starlette
from starlette.middleware import Middleware

from proxy.auth import AuthMiddleware, open_store, store_readiness
from proxy.chat_service import ChatService
from proxy.config import Settings
from proxy.dialect_service import DialectService
from proxy.errors import install_error_handlers
from proxy.extensions import Extensions
from proxy.limits import StreamSlots
from proxy.metrics import Metrics
from proxy.middleware import RequestContextMiddleware
from proxy.passthrough import PassthroughService
from proxy.pipeline import build_pipeline
from proxy.routes import routes
from proxy.runtime import build_shared_state
from proxy.upstream import UpstreamRouter, build_transport

ReadinessCheck = Callable[[], Awaitable[str | None]]


def create_app(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    extensions: Extensions | None = None,
    middleware: Sequence[Middleware] = (),
    readiness_checks: Sequence[ReadinessCheck] = (),
) -> Starlette:
    app_routes = routes()
    escalate = settings.verification.escalate
    metrics = Metrics(
        routes=(route.path for route in app_routes),
        models=settings.models.keys(),
        tenants=settings.metrics.tenants,
        judge_rules=(rule.name for rule in escalate.when) if escalate else (),
    )
    # Redis (if configured), caches, rate limits, replica notices, audit log, recorder.
    shared = build_shared_state(settings, metrics)
    # Evidence, verification and policies as configured, unless the caller brings its own.
    pipeline = build_pipeline(settings, metrics, shared, extensions)
    secrets = settings.secrets()
    # Proxy keys: on when a key store is configured (see proxy.auth); None is the keyless mode.
    key_store = open_store(settings.auth.store) if settings.auth.store else None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with build_transport(settings, transport) as http, shared.running():
            router = UpstreamRouter(settings, http)
            app.state.router = router
            passthrough = PassthroughService(
                router, metrics, secrets, settings.retry, settings.limits.request_seconds
            )
            app.state.passthrough = passthrough
            app.state.dialects = DialectService(
                router, passthrough, pipeline.extensions, metrics, secrets, settings.limits
            )
            app.state.chat_service = ChatService(
                router,
                metrics,
                pipeline.extensions,
                secrets,
                retry=settings.retry,
                stream_seconds=settings.limits.stream_seconds,
                request_seconds=settings.limits.request_seconds,
                max_stream_bytes=settings.limits.max_stream_bytes,
            )
            await pipeline.start()
            app.state.ready = True
            try:
                yield
            finally:
                app.state.ready = False
                await pipeline.aclose()
                await router.aclose()
                if key_store is not None:
                    await key_store.aclose()
                metrics.close()

    app = Starlette(
        routes=app_routes,
        middleware=[
            Middleware(RequestContextMiddleware, metrics=metrics),
            Middleware(AuthMiddleware, store=key_store),
            *shared.middleware,
            *middleware,
        ],
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.shared = shared
    app.state.recorder = shared.recorder
    app.state.policies = pipeline.policies  # None when verification is off (GET /v1/policies)
    app.state.pipeline = pipeline  # POST /v1/verify: the chats' evidence and verifier
    app.state.readiness_checks = (
        *readiness_checks,
        shared.audit.readiness,
        *([partial(store_readiness, key_store)] if key_store is not None else []),
    )
    app.state.ready = False
    app.state.stream_slots = StreamSlots(settings.limits.max_streams_per_key)
    install_error_handlers(app, secrets)
    return app


def app_from_environment() -> Starlette:
    """The app each worker of ``veriproxy serve --workers N`` builds: the configuration from
    ``$VERIPROXY_CONFIG`` and ``VERIPROXY_*`` (validated once already by the parent), and logs
    scrubbed of its secrets as in a single process."""
    from proxy.config import load_settings
    from proxy.logs import configure_logging

    settings = load_settings()
    configure_logging(settings.log_level, settings.secrets())
    return create_app(settings)
