"""Retrieval result cache: a small interface (so Redis can be plugged in later) and an in-memory
LRU with a time-to-live, plus a retriever wrapper that consults it."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from proxy.retrieval.base import DEFAULT_TOP_K, Retriever
from verifiers import Evidence

DEFAULT_MAX_ENTRIES = 2048
DEFAULT_TTL_SECONDS = 3600.0


class ResultCache(Protocol):
    async def get(self, key: str) -> list[Evidence] | None: ...

    async def set(self, key: str, value: list[Evidence]) -> None: ...


class MemoryCache:
    """Least-recently-used entries are evicted beyond ``max_entries``; entries expire after
    ``ttl`` seconds (the index may be rebuilt underneath a long-running proxy)."""

    def __init__(
        self,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        ttl: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._entries: OrderedDict[str, tuple[float, list[Evidence]]] = OrderedDict()
        self._max = max_entries
        self._ttl = ttl
        self._clock = clock

    async def get(self, key: str) -> list[Evidence] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored, value = entry
        if self._clock() - stored > self._ttl:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return list(value)

    async def set(self, key: str, value: list[Evidence]) -> None:
        self._entries[key] = (self._clock(), list(value))
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


def cache_key(backend: str, query: str, top_k: int) -> str:
    return f"{backend}\x1f{top_k}\x1f{' '.join(query.lower().split())}"


class CachedRetriever:
    """Wraps a retriever; identical queries (case and whitespace folded) hit the cache."""

    def __init__(self, inner: Retriever, cache: ResultCache) -> None:
        self._inner = inner
        self._cache = cache
        self.name = inner.name

    async def search(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]:
        key = cache_key(self.name, query, top_k)
        hit = await self._cache.get(key)
        if hit is not None:
            return hit
        result = await self._inner.search(query, top_k=top_k)
        await self._cache.set(key, result)
        return result

    async def aclose(self) -> None:
        await self._inner.aclose()
