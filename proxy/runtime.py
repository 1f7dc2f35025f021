"""Build the proxy's shared state from its settings: Redis (if configured), caches, the rate
limiter and its middleware, replica notices, the audit log, the review queue and the response
recorder.

``create_app`` calls :func:`build_shared_state` once and runs :meth:`SharedState.running`
inside its lifespan. With no ``redis:`` section everything is in-memory and per process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.middleware import Middleware

from proxy.audit import AuditLog, JsonlSink, RedisStreamSink, ResponseRecorder
from proxy.config import Settings
from proxy.metrics import JUDGE_CACHE, Metrics
from proxy.state import RedisLink
from proxy.state.cache import DEFAULT_MAX_ENTRIES, Cache, MemoryCache, RedisCache
from proxy.state.notices import LocalNotices, Notices, RedisNotices
from proxy.state.ratelimit import MemoryRateLimiter, RateLimiter, RedisRateLimiter
from proxy.state.ratelimit_middleware import RateLimitMiddleware
from proxy.state.reports import REPORTS_CACHE, ReportStore

if TYPE_CHECKING:
    from proxy.review.queue import ReviewQueue

RETRIEVAL_CACHE = "retrieval"  # the cache's name: its Redis key prefix and metric label
REPORTS_MEMORY_ENTRIES = 2_000  # reports are larger than cache entries; Redis keeps more


@dataclass(frozen=True, slots=True)
class SharedState:
    link: RedisLink | None
    retrieval_cache: Cache  # evidence by query, sized by ``retrieval.cache_entries``
    judge_cache: Cache  # the LLM judge's checked rulings
    limiter: RateLimiter
    notices: Notices
    audit: AuditLog
    recorder: ResponseRecorder
    middleware: tuple[Middleware, ...]
    reports: ReportStore  # verification reports by completion id (GET .../{id}/verification)
    review: ReviewQueue | None = None  # the review queue, when ``review.enabled``

    @asynccontextmanager
    async def running(self) -> AsyncIterator[SharedState]:
        """Start the background tasks (notice listener, audit flusher); on exit flush what
        Redis will take and close everything."""
        await self.audit.start()
        await self.notices.start()
        try:
            if self.review is None:
                yield self
            else:
                async with self.review.running():
                    yield self
        finally:
            await self.notices.aclose()
            await self.audit.aclose()
            if self.link is not None:
                await self.link.aclose()


def build_shared_state(settings: Settings, metrics: Metrics) -> SharedState:
    link = RedisLink(settings.redis, metrics) if settings.redis is not None else None

    def cache(name: str, entries: int) -> Cache:
        """``entries``: kept in this process (with Redis: while Redis is away)."""
        if link is None:
            return MemoryCache(name, entries, observer=metrics)
        return RedisCache(name, link, fallback_entries=entries)

    reports = cache(REPORTS_CACHE, REPORTS_MEMORY_ENTRIES)
    limiter: RateLimiter
    notices: Notices
    if link is None:
        limiter, notices = MemoryRateLimiter(), LocalNotices()
    else:
        limiter, notices = RedisRateLimiter(link), RedisNotices(link)
    audit_settings = settings.audit
    audit = AuditLog(
        jsonl=(
            JsonlSink(audit_settings.jsonl, fsync=audit_settings.fsync)
            if audit_settings.jsonl
            else None
        ),
        redis=(
            RedisStreamSink(
                link, audit_settings.redis_stream, max_pending=audit_settings.max_pending
            )
            if link is not None and audit_settings.redis_stream
            else None
        ),
        on_failure=lambda sink: metrics.audit_write_failures.labels(sink).inc(),
    )
    review = _review_queue(settings, audit, metrics)
    limits = settings.rate_limits
    middleware = (
        (Middleware(RateLimitMiddleware, limiter=limiter, settings=limits, metrics=metrics),)
        if not limits.default.unlimited or limits.tenants
        else ()
    )
    return SharedState(
        link=link,
        retrieval_cache=cache(RETRIEVAL_CACHE, settings.retrieval.cache_entries),
        judge_cache=cache(JUDGE_CACHE, DEFAULT_MAX_ENTRIES),
        limiter=limiter,
        notices=notices,
        audit=audit,
        recorder=ResponseRecorder(
            metrics, audit, include_text=audit_settings.include_text, review=review
        ),
        middleware=middleware,
        reports=ReportStore(reports, settings.verification.report_ttl_seconds),
        review=review,
    )


def _review_queue(settings: Settings, audit: AuditLog, metrics: Metrics) -> ReviewQueue | None:
    """The review queue when ``review.enabled`` (SQLAlchemy is imported only then)."""
    if not settings.review.enabled:
        return None
    from proxy.review.queue import ReviewQueue

    return ReviewQueue(settings.review, audit, metrics)
