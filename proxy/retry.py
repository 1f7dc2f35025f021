"""Retrying an upstream call that failed before any byte reached the client.

Only failures that say "try again" are retried: HTTP 429, 502, 503 and 504 from the upstream,
and connection failures (:class:`~proxy.errors.UpstreamUnavailable`). The wait doubles from
``backoff_seconds`` each attempt, is replaced by the upstream's ``retry-after`` when that is
longer, and never exceeds ``max_backoff_seconds``. After the last attempt the upstream's own
error is raised unchanged, so the client sees what the provider said.

The chat service calls :func:`with_retries` around opening the upstream call only: once a
stream's first chunk is on its way to the client nothing is retried.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from proxy.errors import UpstreamHTTPError, UpstreamUnavailable
from proxy.settings.upstream import RetryPolicy as RetryPolicy

logger = logging.getLogger("veriproxy.retry")

RETRY_STATUSES = frozenset({429, 502, 503, 504})
T = TypeVar("T")
DEFAULT_RETRY = RetryPolicy()


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, UpstreamHTTPError):
        return exc.status in RETRY_STATUSES
    return isinstance(exc, UpstreamUnavailable)


def backoff(policy: RetryPolicy, attempt: int, exc: BaseException) -> float:
    """Seconds to wait after failed try number ``attempt`` (1-based)."""
    wait = policy.backoff_seconds * 2.0 ** (attempt - 1) * (0.5 + random.random() / 2)
    advised = _retry_after(exc)
    if advised is not None:
        wait = max(wait, advised)
    return min(wait, policy.max_backoff_seconds)


def _retry_after(exc: BaseException) -> float | None:
    if not isinstance(exc, UpstreamHTTPError):
        return None
    for name, value in exc.headers:
        lowered = name.lower()
        try:
            if lowered == "retry-after-ms":
                return float(value) / 1000
            if lowered == "retry-after":
                return float(value)
        except ValueError:
            continue  # an HTTP date or junk: fall back to our own backoff
    return None


async def with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """``await call()``, retried on retryable upstream failures as the policy allows."""
    attempt = 1
    while True:
        try:
            return await call()
        except (UpstreamHTTPError, UpstreamUnavailable) as exc:
            if attempt >= policy.max_attempts or not is_retryable(exc):
                raise
            wait = backoff(policy, attempt, exc)
            logger.warning(
                "upstream call failed (%s), retry %d of %d in %.2f s",
                exc.message,
                attempt,
                policy.max_attempts - 1,
                wait,
            )
            await asyncio.sleep(wait)
            attempt += 1
