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

from proxy.audit.chain import GENESIS, ChainReport, canonical, hash_canonical, verify_entries
from proxy.settings.state import DEFAULT_MAX_PENDING
from proxy.state import UNREACHABLE_ERRORS, RedisLink

log = logging.getLogger("veriproxy.audit")

DEFAULT_STREAM = "veriproxy:audit"
DEDUP_TTL_SECONDS = 86_400

# KEYS: stream, then one dedup key per record. ARGV: dedup TTL, prev of the first record, then
# (hash, record JSON) per record. Records whose dedup key exists were stored by an earlier call
# whose reply was lost: they are skipped. Returns {1, head, n} when all n are stored, or
# {0, head, skipped} when the stream's head is not the expected prev (another replica appended).
_APPEND: Final = (
    """
local prev = ARGV[2]
local first = 1
while first < #KEYS and redis.call('EXISTS', KEYS[first + 1]) == 1 do
  prev = ARGV[first * 2 + 1]
  first = first + 1
end
if first == #KEYS then return {1, prev, #KEYS - 1} end
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
if head ~= prev then return {0, head, first - 1} end
for k = first, #KEYS - 1 do
  local hash = ARGV[k * 2 + 1]
  redis.call('XADD', KEYS[1], '*', 'prev', prev, 'hash', hash, 'record', ARGV[k * 2 + 2])
  redis.call('SET', KEYS[k + 1], '1', 'EX', ARGV[1])
  prev = hash
end
return {1, prev, #KEYS - 1}
"""
)
MAX_BATCH = 100
LOOKBACK_ENTRIES = 20_000  # how many of the newest stream entries a lookup reads
SETTLED_AFTER = 1_000  # entries past the newest match: a request's records are written together
_PAGE = 500
DEFAULT_LINGER_SECONDS = 0.01


@dataclass(slots=True)
class _Pending:
    uid: str
    body: bytes  # the record in canonical form
    counted: bool = False  # already counted as degraded


class RedisStreamSink:
    def __init__(
        self,
        link: RedisLink,
        stream: str = DEFAULT_STREAM,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        retry_seconds: float = 0.2,
        linger_seconds: float = DEFAULT_LINGER_SECONDS,
    ) -> None:
        self.stream = stream
        self._link = link
        self._observer = link.observer
        self._script = link.client.register_script(_APPEND)
        self._max_pending = max_pending
        self._retry = retry_seconds
        self._linger = linger_seconds
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
        return self.submit_canonical(canonical(record))

    def submit_canonical(self, body: bytes) -> bool:
        """:meth:`submit` for a record already in canonical form."""
        if len(self._pending) >= self._max_pending:
            self._observer.on_audit_dropped()
            log.error("audit buffer full (%d records): record dropped", self._max_pending)
            return False
        self._pending.append(_Pending(uuid.uuid4().hex, body))
        self._observer.on_audit_pending(len(self._pending))
        self._idle.clear()
        self._wake.set()
        return True

    async def find(
        self, needle: bytes, *, lookback: int = LOOKBACK_ENTRIES
    ) -> list[dict[str, Any]]:
        """The records, newest first, holding ``needle`` (in canonical form): those still
        queued, then those among the stream's newest ``lookback`` entries. The caller checks
        each record (``needle`` only preselects)."""
        found = [json.loads(p.body) for p in reversed(self._pending) if needle in p.body]
        since, seen, last = 0, 0, "+"
        while seen < lookback:
            page = await self._link.client.xrevrange(self.stream, max=last, min="-", count=_PAGE)
            for entry_id, fields in page or []:
                seen, since = seen + 1, since + 1
                body = _record_field(fields)
                if needle in body:
                    found.append(json.loads(body))
                    since = 0
                last = "(" + _text(entry_id)
            if len(page or []) < _PAGE or (found and since > SETTLED_AFTER):
                break
        return found

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
            # Wait a moment for more records: one round trip then carries a batch, which
            # keeps the flusher's CPU per record small under steady traffic.
            await asyncio.sleep(self._linger)
            self._wake.clear()
            while self._pending:
                batch = [self._pending[i] for i in range(min(MAX_BATCH, len(self._pending)))]
                try:
                    stored = await self._append(batch)
                except UNREACHABLE_ERRORS as exc:
                    self._link.mark_down(exc)
                    self._count_degraded()
                    await asyncio.sleep(self._retry)
                    continue
                for _ in range(stored):
                    self._pending.popleft()
                self._observer.on_audit_pending(len(self._pending))
            self._idle.set()

    async def _append(self, batch: list[_Pending]) -> int:
        """Append records in order, chained onto the stream's head; returns how many of
        ``batch`` (from its start) are now in the stream."""
        done = 0
        while done < len(batch):
            prev, args = self._head, list[str | bytes]()
            for item in batch[done:]:
                prev = hash_canonical(prev, item.body)
                args += [prev, item.body]
            keys = [self.stream, *(f"{self.stream}:dedup:{i.uid}" for i in batch[done:])]
            _ok, head, count = await self._script(
                keys=keys, args=[DEDUP_TTL_SECONDS, self._head, *args]
            )
            # Not ok: another replica appended; the rest is re-chained onto the real head.
            self._head = _text(head)
            done += int(count)
        return done

    def _count_degraded(self) -> None:
        for item in self._pending:
            if not item.counted:
                item.counted = True
                self._observer.on_redis_degraded("audit")


def _record_field(fields: Mapping[Any, Any] | None) -> bytes:
    value = (fields or {}).get(b"record", (fields or {}).get("record", b""))
    return value.encode() if isinstance(value, str) else bytes(value)


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
