"""Keyless mode refuses cross-origin browser requests (a web page must not spend the operator's
upstream key through its visitors' browsers), and ``/readyz`` reports a key store that is down
instead of saying "ready" while every request gets 503."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ProxyFactory

BODY = b'{"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}'


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:1"])
def test_cross_origin_text_plain_post_is_refused(
    proxy_factory: ProxyFactory, emulator, origin: str
) -> None:
    proxy = proxy_factory()
    resp = httpx.post(
        f"{proxy.base_url}/chat/completions",
        content=BODY,
        headers={"content-type": "text/plain", "origin": origin},
    )
    assert resp.status_code == 403
    assert "cross-origin" in resp.json()["error"]["message"]
    assert emulator.stats.requests == []


def test_same_origin_and_originless_requests_pass(proxy_factory: ProxyFactory) -> None:
    proxy = proxy_factory()
    own = proxy.base_url.removesuffix("/v1")
    for headers in ({}, {"origin": own}):
        resp = httpx.post(f"{proxy.base_url}/chat/completions", content=BODY, headers=headers)
        assert resp.status_code == 200, resp.text


def test_readyz_reports_a_key_store_that_is_down(proxy_factory: ProxyFactory) -> None:
    proxy = proxy_factory({"auth": {"store": "redis://127.0.0.1:1/0"}})
    base = proxy.base_url.removesuffix("/v1")
    resp = httpx.get(f"{base}/readyz", timeout=10)
    assert resp.status_code == 503
    assert resp.json()["status"] == "not_ready"
    assert "key store unavailable" in resp.json()["reasons"][0]


def test_readyz_is_ready_with_a_live_key_store(proxy_factory: ProxyFactory) -> None:
    proxy = proxy_factory({"auth": {"store": "redis://127.0.0.1:6379/0"}})
    base = proxy.base_url.removesuffix("/v1")
    resp = httpx.get(f"{base}/readyz", timeout=10)
    assert resp.status_code == 200, resp.text
