"""A retriever wrapper that serves repeated queries from a result cache.

The cache is :class:`proxy.state.EvidenceCache` over one of :mod:`proxy.state.cache`'s caches:
in memory, or in Redis shared by the replicas (see :mod:`proxy.evidence.factory`)."""

from __future__ import annotations

from typing import Protocol

from proxy.retrieval.base import DEFAULT_TOP_K, Retriever
from verifiers import Evidence


class ResultCache(Protocol):
    async def get(self, key: str) -> list[Evidence] | None: ...

    async def set(self, key: str, value: list[Evidence]) -> None: ...


def query_key(backend: str, query: str, top_k: int) -> str:
    """The same key for queries that differ only in case and whitespace."""
    return f"{backend}\x1f{top_k}\x1f{' '.join(query.lower().split())}"


class CachedRetriever:
    """Wraps a retriever; identical queries (case and whitespace folded) hit the cache."""

    def __init__(self, inner: Retriever, cache: ResultCache) -> None:
        self._inner = inner
        self._cache = cache
        self.name = inner.name

    async def search(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]:
        key = query_key(self.name, query, top_k)
        hit = await self._cache.get(key)
        if hit is not None:
            return hit
        result = await self._inner.search(query, top_k=top_k)
        await self._cache.set(key, result)
        return result

    async def aclose(self) -> None:
        await self._inner.aclose()
