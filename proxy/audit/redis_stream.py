"""Audit records to a Redis Stream, chained across all replicas, buffered while Redis is away.

Records are queued in memory (bounded) and appended in order by one background task. Each
append is one atomic script that compares the stream's last hash with the ``prev`` this replica
computed: if another replica appended meanwhile, the script returns the real head and the
record is re-chained onto it, so the stream is one chain whatever the number of replicas. A
per-record id makes a retried append idempotent when Redis executed it but the reply was lost.

While Redis is unreachable records wait in the buffer (``veriproxy_audit_pending_records``);
when it is full new records are dropped and counted (``veriproxy_audit_dropped_total``).
Records survive a Redis restart if Redis persists its data (``appendonly yes``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis

from proxy.audit.chain import GENESIS, ChainReport, chain_hash, verify_entries
from proxy.state import RedisLink
from proxy.state._redis import UNREACHABLE_ERRORS

log = logging.getLogger("veriproxy.audit")

DEFAULT_STREAM = "veriproxy:audit"
DEFAULT_MAX_PENDING = 10_000
DEDUP_TTL_SECONDS = 86_400

# KEYS: stream, dedup key. ARGV: prev, hash, record JSON, dedup TTL.
# Returns {1, hash} when stored (or already stored), {0, head} when prev is not the head.
_APPEND: Final = (
    """
if redis.call('EXISTS', KEYS[2]) == 1 then return {1, ARGV[2]} end
local head = '"""
    + GENESIS
    + """'
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if last[1] then
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'hash' then head = fields[i + 1] end
  end
end
if head ~= ARGV[1] then return {0, head} end
redis.call('XADD', KEYS[1], '*', 'prev', ARGV[1], 'hash', ARGV[2], 'record', ARGV[3])
redis.call('SET', KEYS[2], '1', 'EX', ARGV[4])
return {1, ARGV[2]}
"""
)


@dataclass(slots=True)
class _Pending:
    uid: str
    record: Mapping[str, Any]
    counted: bool = False  # already counted as degraded


class RedisStreamSink:
    def __init__(
        self,
        link: RedisLink,
        stream: str = DEFAULT_STREAM,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        retry_seconds: float = 0.2,
    ) -> None:
        self.stream = stream
        self._link = link
        self._observer = link.observer
        self._script = link.client.register_script(_APPEND)
        self._max_pending = max_pending
        self._retry = retry_seconds
        self._pending: deque[_Pending] = deque()
        self._head = GENESIS
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None

    @property
    def pending(self) -> int:
        return len(self._pending)

    def submit(self, record: Mapping[str, Any]) -> bool:
        """Queue a record; False (and counted) when the buffer is full and it was dropped."""
        if len(self._pending) >= self._max_pending:
            self._observer.on_audit_dropped()
            log.error("audit buffer full (%d records): record dropped", self._max_pending)
            return False
        self._pending.append(_Pending(uuid.uuid4().hex, record))
        self._observer.on_audit_pending(len(self._pending))
        self._idle.clear()
        self._wake.set()
        return True

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="veriproxy-audit-redis")

    async def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued record is in Redis; False if ``timeout`` ran out first."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def aclose(self, timeout: float = 5.0) -> None:
        """Flush what Redis will take within ``timeout``, then stop."""
        if self._task is None:
            return
        if not await self.flush(timeout):
            log.error("audit: %d records not written to Redis at shutdown", self.pending)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                try:
                    await self._append(self._pending[0])
                except UNREACHABLE_ERRORS as exc:
                    self._link.mark_down(exc)
                    self._count_degraded()
                    await asyncio.sleep(self._retry)
                    continue
                self._pending.popleft()
                self._observer.on_audit_pending(len(self._pending))
            self._idle.set()

    async def _append(self, item: _Pending) -> None:
        body = json.dumps(item.record, ensure_ascii=False, separators=(",", ":"))
        dedup = f"{self.stream}:dedup:{item.uid}"
        while True:
            digest = chain_hash(self._head, item.record)
            stored, head = await self._script(
                keys=[self.stream, dedup],
                args=[self._head, digest, body, DEDUP_TTL_SECONDS],
            )
            head = _text(head)
            if int(stored) == 1:
                self._head = head
                return
            self._head = head  # another replica appended: chain onto the real head

    def _count_degraded(self) -> None:
        for item in self._pending:
            if not item.counted:
                item.counted = True
                self._observer.on_redis_degraded("audit")


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def stream_entries(
    client: aioredis.Redis, stream: str, page: int = 1000
) -> AsyncIterator[dict[str, Any]]:
    """Every entry of an audit stream, oldest first, as ``{"prev", "hash", "record"}``."""
    start = "-"
    while True:
        batch = await client.xrange(stream, min=start, max="+", count=page) or []
        for entry_id, fields in batch:
            decoded = {_text(k): _text(v) for k, v in (fields or {}).items()}
            yield {
                "id": _text(entry_id),
                "prev": decoded.get("prev"),
                "hash": decoded.get("hash"),
                "record": json.loads(decoded.get("record", "null")),
            }
        if len(batch) < page:
            return
        start = "(" + _text(batch[-1][0])


async def verify_stream(client: aioredis.Redis, stream: str) -> ChainReport:
    return verify_entries([entry async for entry in stream_entries(client, stream)])
