"""The audit log: one record per response, to a JSONL file and/or a Redis Stream."""

from __future__ import annotations

from dataclasses import dataclass

from proxy.audit.chain import canonical
from proxy.audit.jsonl import JsonlSink
from proxy.audit.record import AuditRecord
from proxy.audit.redis_stream import DEFAULT_MAX_PENDING, RedisStreamSink


@dataclass(frozen=True, slots=True)
class AuditSettings:
    """``audit:`` in the configuration. Neither sink set: no audit log."""

    jsonl: str | None = None  # append-only file path
    redis_stream: str | None = None  # stream name; needs ``redis:``
    include_text: bool = False  # prompt and answer text (may hold patient data)
    fsync: bool = False  # fsync the file after every record
    max_pending: int = DEFAULT_MAX_PENDING  # records buffered while Redis is away


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

    def write(self, record: AuditRecord) -> None:
        if not self.enabled:
            return
        body = canonical(record.to_dict())  # encoded once for both sinks
        if self.jsonl is not None:
            self.jsonl.write_canonical(body)
        if self.redis is not None:
            self.redis.submit_canonical(body)

    async def start(self) -> None:
        if self.redis is not None:
            await self.redis.start()

    async def aclose(self) -> None:
        if self.redis is not None:
            await self.redis.aclose()
        if self.jsonl is not None:
            self.jsonl.close()
