"""The pooled upstream transport: keep-alive reuse, idle connections the upstream closed, h2."""

from __future__ import annotations

import time

import httpx

from proxy.emulator import Emulator
from proxy.server_thread import ServerThread

MESSAGES = [{"role": "user", "content": "hello"}]


def chat(url: str, stream: bool = False) -> httpx.Response:
    body = {"model": "m", "messages": MESSAGES, "stream": stream}
    return httpx.post(f"{url}/v1/chat/completions", json=body, timeout=10)


def test_connection_closed_by_idle_upstream_is_replaced(proxy_factory) -> None:
    emulator = Emulator()
    # The upstream drops idle keep-alive connections after 1 s; the pooled one must not be
    # reused once closed, and the next request must get a fresh connection, not an error.
    with ServerThread(emulator.app(), timeout_keep_alive=1) as upstream:
        proxy = proxy_factory(
            {
                "default_upstream": {"base_url": f"{upstream.url}/v1"},
                "retry": {"max_attempts": 1},  # a retry would hide a reused dead connection
            }
        )
        assert chat(proxy.url).status_code == 200
        time.sleep(1.5)
        for stream in (False, True):
            response = chat(proxy.url, stream)
            assert response.status_code == 200
            assert b'"error"' not in response.content


def test_sequential_requests_reuse_one_connection(proxy_factory) -> None:
    emulator = Emulator()
    with ServerThread(emulator.app()) as upstream:
        proxy = proxy_factory({"default_upstream": {"base_url": f"{upstream.url}/v1"}})
        for _ in range(5):
            assert chat(proxy.url).status_code == 200
        assert len(upstream.server.server_state.connections) == 1


def test_http2_setting_still_talks_to_an_http1_upstream(proxy_factory) -> None:
    proxy = proxy_factory({"http2": True})
    assert chat(proxy.url).json()["choices"][0]["message"]["content"] == "hello"
    assert chat(proxy.url, stream=True).content.endswith(b"data: [DONE]\n\n")
