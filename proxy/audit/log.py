"""The audit log: one record per response, to a JSONL file and/or a Redis Stream.

The audit log never fails a request. A record the file cannot take (disk full, permissions, a
file that cannot be read as a chain) is lost, logged, counted
(``veriproxy_audit_write_failures_total{sink="jsonl"}``) and reported by ``/readyz`` as not
ready until a later write succeeds, so a load balancer moves traffic to a replica that can
audit. The Redis Stream sink buffers instead (``audit.max_pending``) and counts what it drops.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

import anyio

from proxy.audit.chain import canonical
from proxy.audit.jsonl import AuditFileError, JsonlSink, find_records
from proxy.audit.redis_stream import RedisStreamSink

logger = logging.getLogger("veriproxy.audit")


class Entry(Protocol):
    """What the log chains: a response's record, or another event (a reviewer's label)."""

    def to_dict(self) -> dict[str, Any]: ...


class AuditLog:
    """Writes each record to every configured sink. With no sink it is a no-op."""

    def __init__(
        self,
        *,
        jsonl: JsonlSink | None = None,
        redis: RedisStreamSink | None = None,
        on_failure: Callable[[str], None] = lambda sink: None,
    ) -> None:
        self.jsonl = jsonl
        self.redis = redis
        self.failure: str | None = None  # why the last write to the file failed
        self._on_failure = on_failure

    @property
    def enabled(self) -> bool:
        return self.jsonl is not None or self.redis is not None

    def write(self, record: Entry) -> None:
        if not self.enabled:
            return
        body = canonical(record.to_dict())  # encoded once for both sinks
        if self.jsonl is not None:
            try:
                self.jsonl.write_canonical(body)
            except (OSError, AuditFileError) as exc:
                self.failure = f"the audit file cannot be written ({type(exc).__name__})"
                logger.error("audit record lost: %s", exc)
                self._on_failure("jsonl")
            else:
                self.failure = None
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

    async def readiness(self) -> str | None:
        """A ``/readyz`` check: None while the audit file takes records."""
        return self.failure

    async def start(self) -> None:
        if self.redis is not None:
            await self.redis.start()

    async def aclose(self) -> None:
        if self.redis is not None:
            await self.redis.aclose()
        if self.jsonl is not None:
            self.jsonl.close()
