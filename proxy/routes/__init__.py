"""Thin HTTP routes: parse, call a service, respond. The work lives in services."""

from __future__ import annotations

from starlette.routing import Route

from proxy.routes import (
    chat,
    dialects,
    health,
    metrics,
    models,
    passthrough,
    policies,
    reports,
    review,
    review_queue,
    ui,
    verify,
)


def routes() -> list[Route]:
    return [
        *chat.ROUTES,
        *dialects.ROUTES,
        *reports.ROUTES,
        *review.ROUTES,
        *review_queue.ROUTES,
        *models.ROUTES,
        *health.ROUTES,
        *metrics.ROUTES,
        *verify.ROUTES,
        *policies.ROUTES,
        *ui.ROUTES,
        *passthrough.ROUTES,  # last: its /v1/{rest:path} takes what no route above serves
    ]
