"""Result caches (retrieval results, LLM judge rulings, stored reports): in-memory (embedded
default) or Redis (shared by all replicas), behind one async interface.

Values are bytes; callers serialise. Keys come from :func:`cache_key`, which hashes the model
version together with the claim and evidence so a new model never reads an old model's verdict.
A Redis cache that loses its server serves from a local in-memory cache until Redis returns.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Protocol, cast

from cachetools import LRUCache

from proxy.state._events import NullObserver, StateObserver
from proxy.state._redis import RedisLink, Unavailable

DEFAULT_MAX_ENTRIES = 10_000
DEFAULT_TTL_SECONDS = 3600.0


class Cache(Protocol):
    """A named byte cache with per-entry time to live."""

    name: str

    async def get(self, key: str) -> bytes | None: ...

    async def set(self, key: str, value: bytes, ttl: float = DEFAULT_TTL_SECONDS) -> None: ...


def cache_key(model_version: str, *parts: str) -> str:
    """A fixed-length key for (model version, claim, evidence, …); the text itself never
    reaches Redis (it may hold patient data)."""
    digest = hashlib.sha256(model_version.encode())
    for part in parts:
        digest.update(b"\x1f")
        digest.update(hashlib.sha256(part.encode()).digest())
    return digest.hexdigest()


class MemoryCache:
    """Local to this process: beyond ``max_entries`` the least recently used entry goes
    (cachetools' ``LRUCache``); each entry expires ``ttl`` seconds after it was set, checked
    when it is read (``TTLCache`` has one ttl per cache; the judge's differs per policy)."""

    def __init__(
        self,
        name: str,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        observer: StateObserver | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.max_entries = max_entries
        self._entries: LRUCache[str, tuple[float, bytes]] = LRUCache(max_entries)
        self._observer: StateObserver = observer or NullObserver()
        self._timer = timer

    async def get(self, key: str) -> bytes | None:
        value = self.peek(key)
        self._observer.on_cache_lookup(self.name, value is not None)
        return value

    async def set(self, key: str, value: bytes, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self.put(key, value, ttl)

    def peek(self, key: str) -> bytes | None:
        """Look up without counting (used as the Redis cache's fallback)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if expires <= self._timer():
            del self._entries[key]
            return None
        return value

    def put(self, key: str, value: bytes, ttl: float) -> None:
        if self.max_entries:  # a zero-sized LRUCache refuses every entry: keep nothing
            self._entries[key] = (self._timer() + ttl, value)

    def __len__(self) -> int:
        return len(self._entries)


class RedisCache:
    """A cache shared by all replicas through Redis, with a local fallback while it is down."""

    def __init__(
        self,
        name: str,
        link: RedisLink,
        fallback_entries: int = DEFAULT_MAX_ENTRIES,
    ) -> None:
        self.name = name
        self._link = link
        self._fallback = MemoryCache(name, fallback_entries)

    @property
    def max_entries(self) -> int:
        """Entries kept in this process while Redis is away (Redis itself keeps any number)."""
        return self._fallback.max_entries

    def _key(self, key: str) -> str:
        return self._link.key("cache", self.name, key)

    async def get(self, key: str) -> bytes | None:
        found = await self._link.call("cache", lambda r: r.get(self._key(key)))
        value = (
            self._fallback.peek(key)
            if isinstance(found, Unavailable)
            else cast("bytes | None", found)
        )
        self._link.observer.on_cache_lookup(self.name, value is not None)
        return value

    async def set(self, key: str, value: bytes, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        ttl_ms = max(1, int(ttl * 1000))
        stored = await self._link.call("cache", lambda r: r.set(self._key(key), value, px=ttl_ms))
        if isinstance(stored, Unavailable):
            self._fallback.put(key, value, ttl)
