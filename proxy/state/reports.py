"""Stored verification reports, so any client can fetch one by completion id.

Many clients drop the fields and chunks they do not know (LangChain keeps neither the
``verification`` field nor the annotation chunks; the litellm SDK drops headers on streams),
but nearly every one keeps the completion's ``id``. Each report a client was sent is stored under
that id and under the request's ``X-Request-Id`` (which a client may set itself: LangChain's
stream keeps no completion id) -- in the process's memory by default, in Redis when one is
configured (shared by the replicas) -- for ``ttl`` seconds, and served by
``GET /v1/chat/completions/{id}/verification``.

The stored key is a digest of the tenant and the id (:func:`~proxy.state.cache.cache_key`), so a
caller of another tenant never finds a report that is not its own, and no completion id or
tenant name reaches Redis in clear. What is stored is the report as the client got it: the words
a policy withheld are not in it (the audit log keeps them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from policies import DecidedReport
from proxy.state.cache import Cache, cache_key
from verifiers import to_json

REPORTS_CACHE = "reports"
_KEY_SPACE = "report/v1"


class ReportStore:
    """Reports by (tenant, completion id), each kept ``ttl`` seconds."""

    def __init__(self, cache: Cache, ttl: float) -> None:
        self._cache = cache
        self._ttl = ttl

    async def put(self, ids: Iterable[str], tenant: str | None, report: DecidedReport) -> None:
        """Store ``report`` (as the client got it) under each of ``ids``: the completion id,
        and the request id (``X-Request-Id``, which a client may choose)."""
        data = json.dumps(to_json(report), ensure_ascii=False, separators=(",", ":")).encode()
        for completion_id in dict.fromkeys(i for i in ids if i):
            await self._cache.set(_key(completion_id, tenant), data, self._ttl)

    async def get(self, completion_id: str, tenant: str | None) -> Any | None:
        """The stored report, or None (unknown id, expired, or another tenant's)."""
        data = await self._cache.get(_key(completion_id, tenant))
        return None if data is None else json.loads(data)


def _key(completion_id: str, tenant: str | None) -> str:
    return cache_key(_KEY_SPACE, tenant or "", completion_id)


def report_body(completion_id: str, report: Any) -> Mapping[str, Any]:
    """The body of ``GET /v1/chat/completions/{id}/verification``."""
    return {"id": completion_id, "object": "chat.completion.verification", "verification": report}
