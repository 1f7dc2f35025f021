"""The audit log: one record per response, to a JSONL file and/or a Redis Stream."""

from __future__ import annotations

import json
from typing import Any, Protocol

import anyio

from proxy.audit.chain import canonical
from proxy.audit.jsonl import JsonlSink, find_records
from proxy.audit.redis_stream import RedisStreamSink


class Entry(Protocol):
    """What the log chains: a response's record, or another event (a reviewer's label)."""

    def to_dict(self) -> dict[str, Any]: ...


class AuditLog:
    """Writes each record to every configured sink. With no sink it is a no-op."""

    def __init__(
        self, *, jsonl: JsonlSink | None = None, redis: RedisStreamSink | None = None
    ) -> None:
        self.jsonl = jsonl
        self.redis = redis

    @property
    def enabled(self) -> bool:
        return self.jsonl is not None or self.redis is not None

    def write(self, record: Entry) -> None:
        if not self.enabled:
            return
        body = canonical(record.to_dict())  # encoded once for both sinks
        if self.jsonl is not None:
            self.jsonl.write_canonical(body)
        if self.redis is not None:
            self.redis.submit_canonical(body)

    async def find(self, request_id: str) -> list[dict[str, Any]]:
        """The records of one request (one per choice), newest first, read back from the file
        when there is one (this process wrote it synchronously), else from the stream. Only
        recent records are searched (see ``LOOKBACK_*``): this serves reviewers, not archives."""
        # Canonical JSON sorts keys and drops spaces, so the field reads exactly like this.
        needle = b'"request_id":' + json.dumps(request_id, ensure_ascii=False).encode()
        if self.jsonl is not None:
            records = await anyio.to_thread.run_sync(find_records, self.jsonl.path, needle)
        elif self.redis is not None:
            records = await self.redis.find(needle)
        else:
            records = []
        return [r for r in records if isinstance(r, dict) and r.get("request_id") == request_id]

    async def start(self) -> None:
        if self.redis is not None:
            await self.redis.start()

    async def aclose(self) -> None:
        if self.redis is not None:
            await self.redis.aclose()
        if self.jsonl is not None:
            self.jsonl.close()
