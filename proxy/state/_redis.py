"""One Redis connection pool shared by cache, rate limiter, notices and audit.

Redis is optional and may go away at any time. Callers run each operation through
:meth:`RedisLink.call`; when Redis is unreachable it returns :data:`UNAVAILABLE` instead of
raising, counts the fallback under the caller's operation name, and stops trying for
``retry_after`` seconds so a dead Redis costs one timeout, not one per request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from proxy.settings.state import RedisSettings
from proxy.state._events import NullObserver, StateObserver

log = logging.getLogger("veriproxy.state")

T = TypeVar("T")


class Unavailable:
    """Sentinel returned by :meth:`RedisLink.call` when Redis could not be used."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNAVAILABLE"


UNAVAILABLE: Final = Unavailable()

# Errors that mean "Redis is not there right now" (BusyLoadingError, raised while Redis replays
# its append-only file after a restart, is a ConnectionError). Anything else is a bug and raises.
UNREACHABLE_ERRORS: Final = (RedisConnectionError, RedisTimeoutError, OSError)


class RedisLink:
    """A Redis client plus the bookkeeping of whether Redis is currently usable."""

    def __init__(self, settings: RedisSettings, observer: StateObserver | None = None) -> None:
        self.settings = settings
        self.prefix = settings.prefix
        self.observer: StateObserver = observer or NullObserver()
        self.client: aioredis.Redis = aioredis.Redis.from_url(
            settings.url,
            socket_timeout=settings.socket_timeout,
            socket_connect_timeout=settings.socket_timeout,
        )
        self._down_until = 0.0

    @property
    def available(self) -> bool:
        """False while backing off after a failure."""
        return time.monotonic() >= self._down_until

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    async def call(
        self, operation: str, fn: Callable[[aioredis.Redis], Awaitable[T]]
    ) -> T | Unavailable:
        """Run ``fn(client)``; on an unreachable Redis count ``operation`` as degraded."""
        if not self.available:
            self.observer.on_redis_degraded(operation)
            return UNAVAILABLE
        try:
            return await fn(self.client)
        except UNREACHABLE_ERRORS as exc:
            self.mark_down(exc)
            self.observer.on_redis_degraded(operation)
            return UNAVAILABLE

    def mark_down(self, exc: BaseException) -> None:
        if self.available:
            log.warning("redis unreachable, falling back: %s", type(exc).__name__)
        self._down_until = time.monotonic() + self.settings.retry_after

    async def ping(self) -> bool:
        """Probe Redis now, ignoring the back-off (readiness checks, recovery loops)."""
        try:
            await self.client.ping()
        except UNREACHABLE_ERRORS as exc:
            self.mark_down(exc)
            return False
        self._down_until = 0.0
        return True

    async def aclose(self) -> None:
        await self.client.aclose()
