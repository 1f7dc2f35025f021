"""Per-key rate limits against real Redis, and the in-memory form."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.state import (
    MemoryRateLimiter,
    RateBudget,
    RateLimiter,
    RedisLink,
    RedisRateLimiter,
    RedisSettings,
)
from tests.proxy.redis_helpers import (
    SHARED_URL,
    delete_prefix,
    free_port,
    fresh_prefix,
    private_redis,
)


@pytest.fixture
async def link() -> AsyncIterator[RedisLink]:
    prefix = fresh_prefix()
    link = RedisLink(RedisSettings(SHARED_URL, prefix=prefix))
    yield link
    await link.aclose()
    delete_prefix(prefix)


@pytest.fixture(params=["memory", "redis"])
def limiter(request: pytest.FixtureRequest, link: RedisLink) -> RateLimiter:
    return MemoryRateLimiter() if request.param == "memory" else RedisRateLimiter(link)


async def test_request_limit_refuses_then_recovers(limiter: RateLimiter) -> None:
    limits = RateBudget(requests=2, window_seconds=0.3)
    assert (await limiter.acquire("key-a", limits)).allowed
    assert (await limiter.acquire("key-a", limits)).allowed
    refused = await limiter.acquire("key-a", limits)
    assert not refused.allowed
    assert refused.limit == "requests"
    assert 0 < refused.retry_after <= 0.3
    assert refused.retry_after_header == "1"
    assert (await limiter.acquire("key-b", limits)).allowed  # other keys are untouched
    await asyncio.sleep(refused.retry_after + 0.05)
    assert (await limiter.acquire("key-a", limits)).allowed


async def test_token_budget_refuses_once_spent(limiter: RateLimiter) -> None:
    limits = RateBudget(tokens=100, window_seconds=0.3)
    assert (await limiter.acquire("key", limits)).allowed
    await limiter.add_tokens("key", 60, limits)
    assert (await limiter.acquire("key", limits)).allowed
    await limiter.add_tokens("key", 60, limits)
    refused = await limiter.acquire("key", limits)
    assert (refused.allowed, refused.limit) == (False, "tokens")
    await asyncio.sleep(refused.retry_after + 0.05)
    assert (await limiter.acquire("key", limits)).allowed


async def test_unlimited_never_refuses(limiter: RateLimiter) -> None:
    for _ in range(50):
        assert (await limiter.acquire("key", RateBudget())).allowed


async def test_redis_limits_are_shared_by_replicas(link: RedisLink) -> None:
    other = RedisLink(RedisSettings(SHARED_URL, prefix=link.prefix))
    replicas = [RedisRateLimiter(link), RedisRateLimiter(other)]
    limits = RateBudget(requests=3, window_seconds=5)
    results = [(await replicas[i % 2].acquire("shared", limits)).allowed for i in range(5)]
    await other.aclose()
    assert results == [True, True, True, False, False]


async def test_redis_never_stores_the_key_in_clear(link: RedisLink) -> None:
    await RedisRateLimiter(link).acquire("sk-secret-value", RateBudget(requests=5))
    keys = [k.decode() async for k in link.client.scan_iter(match=link.prefix + "*")]
    assert keys and not any("sk-secret-value" in k for k in keys)


async def test_unreachable_redis_limits_per_replica() -> None:
    dead = RedisLink(RedisSettings(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.2))
    limiter = RedisRateLimiter(dead)
    limits = RateBudget(requests=1, window_seconds=5)
    assert (await limiter.acquire("key", limits)).allowed
    assert not (await limiter.acquire("key", limits)).allowed
    await dead.aclose()


async def test_a_key_over_its_limit_stays_refused_when_redis_goes_away(tmp_path: Path) -> None:
    """Issue 26 item 17: the fallback starts from the shared counts, not from zero (a key
    over its limit got four more 200s while Redis was frozen)."""
    limits = RateBudget(requests=3, tokens=100, window_seconds=30)
    with private_redis(tmp_path) as server:
        settings = RedisSettings(server.url, socket_timeout=0.2, retry_after=30)
        link, other = RedisLink(settings), RedisLink(settings)
        here, there = RedisRateLimiter(link), RedisRateLimiter(other)
        assert (await there.acquire("key", limits)).allowed  # another replica's requests
        assert (await there.acquire("key", limits)).allowed
        assert (await here.acquire("key", limits)).allowed  # the third, shared: the limit
        assert not (await here.acquire("key", limits)).allowed
        await here.add_tokens("other-key", 100, limits)
        server.kill()
        refused = await here.acquire("key", limits)
        assert not refused.allowed and refused.limit == "requests"
        spent = await here.acquire("other-key", limits)
        assert not spent.allowed and spent.limit == "tokens"
        await link.aclose()
        await other.aclose()
