"""Shared state: Redis link with degradation tracking, caches, rate limits and notices.

Every component has an in-memory form (the embedded default, no server needed) and a Redis
form (shared by replicas) behind one interface; the Redis forms keep serving from memory while
Redis is unreachable and count each fallback.
"""

from proxy.settings.state import RateBudget, RedisSettings
from proxy.state._events import NullObserver, StateObserver
from proxy.state._redis import UNAVAILABLE, UNREACHABLE_ERRORS, RedisLink
from proxy.state.cache import Cache, MemoryCache, RedisCache, cache_key
from proxy.state.evidence_cache import EvidenceCache
from proxy.state.notices import (
    POLICY_RELOAD,
    RESYNC,
    LocalNotices,
    Notice,
    Notices,
    RedisNotices,
)
from proxy.state.policy_sync import follow_policy_notices
from proxy.state.ratelimit import (
    Admission,
    MemoryRateLimiter,
    RateLimiter,
    RedisRateLimiter,
)

__all__ = [
    "POLICY_RELOAD",
    "RESYNC",
    "UNAVAILABLE",
    "UNREACHABLE_ERRORS",
    "Admission",
    "Cache",
    "EvidenceCache",
    "LocalNotices",
    "MemoryCache",
    "MemoryRateLimiter",
    "Notice",
    "Notices",
    "NullObserver",
    "RateBudget",
    "RateLimiter",
    "RedisCache",
    "RedisLink",
    "RedisNotices",
    "RedisRateLimiter",
    "RedisSettings",
    "StateObserver",
    "cache_key",
    "follow_policy_notices",
]
