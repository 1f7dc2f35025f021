"""Retrieval results in a :class:`~proxy.state.cache.Cache`.

``EvidenceCache`` satisfies the retrieval package's ``ResultCache`` (``get``/``set`` of
``list[Evidence]``), so ``CachedRetriever(retriever, EvidenceCache(cache))`` keeps results in
process memory or, with a :class:`~proxy.state.cache.RedisCache`, shares them between replicas.
The retriever's key holds the query text, so it is hashed before it reaches the cache: queries
may hold patient data.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.state.cache import DEFAULT_TTL_SECONDS, Cache, cache_key
from verifiers import Evidence, EvidenceSentence, to_json

_KEY_SPACE = "evidence/v1"


class EvidenceCache:
    def __init__(self, cache: Cache, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self._cache = cache
        self._ttl = ttl

    @staticmethod
    def _key(key: str) -> str:
        return cache_key(_KEY_SPACE, key)

    async def get(self, key: str) -> list[Evidence] | None:
        raw = await self._cache.get(self._key(key))
        if raw is None:
            return None
        return [_evidence(item) for item in json.loads(raw)]

    async def set(self, key: str, value: list[Evidence]) -> None:
        body = json.dumps(to_json(value), ensure_ascii=False, separators=(",", ":"))
        await self._cache.set(self._key(key), body.encode(), self._ttl)


def _evidence(item: dict[str, Any]) -> Evidence:
    return Evidence(
        **{
            **item,
            "sentences": tuple(EvidenceSentence(**s) for s in item["sentences"]),
        }
    )
