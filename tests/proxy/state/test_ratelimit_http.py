"""Rate limits at the HTTP level: a real proxy, a real upstream emulator, limits in real Redis."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.proxy.redis_helpers import SHARED_URL, delete_prefix, fresh_prefix

CHAT = {"model": "gpt-x", "messages": [{"role": "user", "content": "hello there"}]}


@pytest.fixture
def prefix() -> Iterator[str]:
    prefix = fresh_prefix()
    yield prefix
    delete_prefix(prefix)


def start(proxy_factory, prefix: str, limits: dict[str, float]) -> Any:
    """A proxy configured the way an operator would: ``redis:`` and ``rate_limits:``."""
    return proxy_factory(
        {"redis": {"url": SHARED_URL, "prefix": prefix}, "rate_limits": {"default": limits}}
    )


def test_requests_limit_429_then_recovery(proxy_factory, prefix: str) -> None:
    proxy = start(proxy_factory, prefix, {"requests": 2, "window_seconds": 1.0})
    with httpx.Client(base_url=proxy.url, timeout=10) as client:
        assert [client.post("/v1/chat/completions", json=CHAT).status_code for _ in range(2)] == [
            200,
            200,
        ]
        refused = client.post("/v1/chat/completions", json=CHAT)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "1"
        error = refused.json()["error"]
        assert (error["type"], error["code"]) == ("requests", "rate_limit_exceeded")
        assert "limit 2" in error["message"]
        assert client.get("/v1/models").status_code == 200  # only model routes are limited
        time.sleep(float(refused.headers["retry-after"]) + 0.05)
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 200
    text = proxy.app.state.metrics.render().decode()
    assert 'veriproxy_rate_limited_total{limit="requests",tenant="anonymous"} 1.0' in text


@pytest.mark.parametrize("stream", [False, True])
def test_token_budget_counts_usage(proxy_factory, prefix: str, emulator, stream: bool) -> None:
    emulator.emulator.reply = "one two three four five six seven eight nine ten"
    proxy = start(proxy_factory, prefix, {"tokens": 20, "window_seconds": 5.0})
    body = {**CHAT, "stream": stream, "stream_options": {"include_usage": True}} if stream else CHAT
    with httpx.Client(base_url=proxy.url, timeout=10) as client:
        first = client.post("/v1/chat/completions", json=body)
        assert first.status_code == 200
        assert client.post("/v1/chat/completions", json=body).status_code == 200
        refused = client.post("/v1/chat/completions", json=body)
    assert refused.status_code == 429
    assert refused.json()["error"]["type"] == "tokens"
