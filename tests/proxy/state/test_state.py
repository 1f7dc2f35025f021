"""Shared state against real Redis: cache, degradation and pub/sub notices."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from proxy.app import create_app
from proxy.config import settings_from_mapping
from proxy.state import (
    POLICY_RELOAD,
    RESYNC,
    LocalNotices,
    MemoryCache,
    Notice,
    RedisCache,
    RedisLink,
    RedisNotices,
    RedisSettings,
    cache_key,
)
from proxy.state.evidence_cache import EvidenceCache
from proxy.state.policy_sync import follow_policy_notices
from tests.proxy.redis_helpers import (
    SHARED_URL,
    delete_prefix,
    free_port,
    fresh_prefix,
    private_redis,
)
from verifiers import Evidence, EvidenceSentence


@dataclass
class Recorder:
    """A StateObserver that remembers what it was told."""

    lookups: list[tuple[str, bool]] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)

    def on_cache_lookup(self, cache: str, hit: bool) -> None:
        self.lookups.append((cache, hit))

    def on_redis_degraded(self, operation: str) -> None:
        self.degraded.append(operation)

    def on_audit_pending(self, count: int) -> None:
        return None

    def on_audit_dropped(self) -> None:
        return None


@pytest.fixture
async def link() -> AsyncIterator[RedisLink]:
    prefix = fresh_prefix()
    link = RedisLink(RedisSettings(SHARED_URL, prefix=prefix), Recorder())
    yield link
    await link.aclose()
    delete_prefix(prefix)


def test_cache_key_depends_on_model_version_and_every_part() -> None:
    base = cache_key("nli-v1", "claim", "evidence")
    assert base != cache_key("nli-v2", "claim", "evidence")
    assert base != cache_key("nli-v1", "claim", "evidence!")
    assert base != cache_key("nli-v1", "claimevidence")
    assert "claim" not in base and len(base) == 64


async def test_redis_cache_hit_on_repeated_claim_shared_across_replicas(link: RedisLink) -> None:
    replica_a = RedisCache("verification", link)
    other = RedisLink(RedisSettings(SHARED_URL, prefix=link.prefix), link.observer)
    replica_b = RedisCache("verification", other)
    key = cache_key("nli-v1", "Aspirin reduces fever.", "Aspirin lowered fever in 90%.")
    assert await replica_a.get(key) is None
    await replica_a.set(key, b'{"verdict":"supported"}', ttl=30)
    assert await replica_b.get(key) == b'{"verdict":"supported"}'
    await other.aclose()
    assert link.observer.lookups == [("verification", False), ("verification", True)]
    assert link.observer.degraded == []


async def test_redis_cache_entries_expire(link: RedisLink) -> None:
    cache = RedisCache("retrieval", link)
    await cache.set("k", b"v", ttl=0.05)
    assert await cache.get("k") == b"v"
    await asyncio.sleep(0.15)
    assert await cache.get("k") is None


async def test_memory_cache_ttl_and_lru_bound() -> None:
    observer = Recorder()
    cache = MemoryCache("retrieval", max_entries=2, observer=observer)
    await cache.set("a", b"1")
    await cache.set("b", b"2")
    assert await cache.get("a") == b"1"  # a is now most recent
    await cache.set("c", b"3")  # evicts b
    assert await cache.get("b") is None
    assert len(cache) == 2
    await cache.set("short", b"x", ttl=0.01)
    await asyncio.sleep(0.05)
    assert await cache.get("short") is None
    assert observer.lookups == [("retrieval", True), ("retrieval", False), ("retrieval", False)]


@pytest.mark.parametrize("redis", [None, {"url": "redis://127.0.0.1:1/0"}])
def test_retrieval_cache_entries_size_the_servers_retrieval_cache(redis: object) -> None:
    raw = {"retrieval": {"enabled": False, "cache_entries": 7}, "verification": {"enabled": False}}
    app = create_app(settings_from_mapping({**raw, "redis": redis}, environ={}))
    cache = app.state.shared.retrieval_cache
    # In memory, or (with Redis) what this process keeps while Redis is away.
    assert isinstance(cache, RedisCache if redis else MemoryCache)
    assert cache.max_entries == 7


async def test_unreachable_redis_falls_back_to_memory_and_counts() -> None:
    observer = Recorder()
    dead = RedisLink(
        RedisSettings(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.2), observer
    )
    cache = RedisCache("verification", dead)
    await cache.set("k", b"v", ttl=30)
    assert await cache.get("k") == b"v"  # served from the local fallback
    assert not dead.available
    assert observer.degraded == ["cache", "cache"]
    assert observer.lookups == [("verification", True)]
    await dead.aclose()


async def test_notices_reach_every_replica(link: RedisLink) -> None:
    replicas = [RedisNotices(link), RedisNotices(link)]
    received: list[list[Notice]] = [[], []]
    for notices, inbox in zip(replicas, received, strict=True):

        async def handler(notice: Notice, inbox: list[Notice] = inbox) -> None:
            inbox.append(notice)

        notices.subscribe(handler)
        await notices.start()
    await asyncio.wait_for(asyncio.gather(*(n.subscribed.wait() for n in replicas)), timeout=5)
    await replicas[0].publish(POLICY_RELOAD, {"policy": "strict"})
    for _ in range(100):
        if all(received):
            break
        await asyncio.sleep(0.02)
    for inbox in received:
        assert [(n.kind, n.origin, dict(n.data)) for n in inbox] == [
            (POLICY_RELOAD, replicas[0].replica_id, {"policy": "strict"})
        ]
    for notices in replicas:
        await notices.aclose()


async def test_local_notices_deliver_in_process() -> None:
    notices = LocalNotices()
    seen: list[str] = []

    async def handler(notice: Notice) -> None:
        seen.append(notice.kind)

    notices.subscribe(handler)
    await notices.publish(POLICY_RELOAD)
    assert seen == [POLICY_RELOAD]
    assert RESYNC != POLICY_RELOAD


async def test_evidence_cache_shares_retrieval_results_without_query_text(
    link: RedisLink,
) -> None:
    evidence = [
        Evidence(
            pmid="123",
            title="Aspirin and fever",
            abstract="Aspirin lowered fever. It was safe.",
            sentences=(EvidenceSentence("Aspirin lowered fever.", 0, 22),),
            journal="J Test",
            year=2020,
            score=0.75,
            retriever="hybrid",
        )
    ]
    query_key = "hybrid\x1f10\x1fdoes aspirin reduce fever in patient john doe"
    writer = EvidenceCache(RedisCache("retrieval", link))
    assert await writer.get(query_key) is None
    await writer.set(query_key, evidence)
    reader = EvidenceCache(RedisCache("retrieval", link))
    assert await reader.get(query_key) == evidence
    keys = [k.decode() async for k in link.client.scan_iter(match=link.prefix + "*")]
    assert len(keys) == 1 and "john" not in keys[0]


async def test_policy_notice_makes_other_replicas_reload(link: RedisLink) -> None:
    publisher, follower = RedisNotices(link), RedisNotices(link)
    reloads = {"publisher": 0, "follower": 0}

    def reloader(name: str) -> Callable[[], None]:
        def reload() -> None:
            reloads[name] += 1

        return reload

    follow_policy_notices(publisher, reloader("publisher"))
    follow_policy_notices(follower, reloader("follower"))
    for notices in (publisher, follower):
        await notices.start()
    await asyncio.wait_for(
        asyncio.gather(publisher.subscribed.wait(), follower.subscribed.wait()), timeout=5
    )
    await publisher.publish(POLICY_RELOAD)
    for _ in range(100):
        if reloads["follower"]:
            break
        await asyncio.sleep(0.02)
    assert reloads == {"publisher": 0, "follower": 1}  # the publisher already has its files
    for notices in (publisher, follower):
        await notices.aclose()


async def test_notices_resync_after_redis_restart(tmp_path: Path) -> None:
    with private_redis(tmp_path) as server:
        link = RedisLink(RedisSettings(server.url, socket_timeout=0.2, retry_after=0.1))
        notices = RedisNotices(link, reconnect_seconds=0.05)
        kinds: list[str] = []

        async def handler(notice: Notice) -> None:
            kinds.append(notice.kind)

        notices.subscribe(handler)
        await notices.start()
        await asyncio.wait_for(notices.subscribed.wait(), timeout=5)
        server.kill()
        for _ in range(100):
            if not notices.subscribed.is_set():
                break
            await asyncio.sleep(0.02)
        server.start()
        await asyncio.wait_for(notices.subscribed.wait(), timeout=10)
        for _ in range(100):
            if kinds:
                break
            await asyncio.sleep(0.02)
        await notices.aclose()
        await link.aclose()
    assert kinds == [RESYNC]
