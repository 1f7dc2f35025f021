"""Verify an audit chain from a JSONL file or a Redis Stream (``veriproxy audit verify``)."""

from __future__ import annotations

import redis.asyncio as aioredis

from proxy.audit.chain import ChainReport
from proxy.audit.jsonl import verify_file
from proxy.audit.redis_stream import verify_stream


async def verify_redis(url: str, stream: str) -> ChainReport:
    client = aioredis.Redis.from_url(url)
    try:
        return await verify_stream(client, stream)
    finally:
        await client.aclose()


__all__ = ["ChainReport", "verify_file", "verify_redis"]
