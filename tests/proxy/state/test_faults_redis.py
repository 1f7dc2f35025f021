"""Redis down and back, with proxy keys stored in Redis: while Redis is down every request is
refused with a 503 in OpenAI's envelope (never let through, never a hang); once it is back the
same key works again without restarting the proxy."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from proxy.auth import RedisKeyStore, new_key
from proxy.testing.server_thread import RunningEmulator
from tests.conftest import ProxyFactory
from tests.proxy.redis_helpers import private_redis

BODY = {"model": "gpt-test", "messages": [{"role": "user", "content": "hello"}]}


async def _put_key(url: str) -> str:
    key, record = new_key("acme")
    store = RedisKeyStore(url)
    await store.put(record)
    await store.aclose()
    return key


def test_redis_key_store_down_and_back(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    with private_redis(tmp_path) as redis_server:
        key = asyncio.run(_put_key(redis_server.url))
        proxy = proxy_factory({"auth": {"store": redis_server.url}})
        url = f"{proxy.base_url}/chat/completions"
        auth = {"authorization": f"Bearer {key}"}

        assert httpx.post(url, json=BODY, headers=auth, timeout=10).status_code == 200

        redis_server.kill()
        down = httpx.post(url, json=BODY, headers=auth, timeout=10)
        assert down.status_code == 503
        assert down.json()["error"]["code"] == "key_store_unavailable"
        assert key not in down.text
        assert httpx.get(f"{proxy.url}/healthz", timeout=10).status_code == 200

        redis_server.start()
        back = httpx.post(url, json=BODY, headers=auth, timeout=10)
        assert back.status_code == 200, back.text
        assert len(emulator.stats.requests) == 2
