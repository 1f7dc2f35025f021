"""Client disconnect in every phase: while sending the body, while the proxy waits for the
upstream, mid-stream and after the end. Afterwards nothing is left open: no stream slot, no
stream counted in flight, no upstream stream still running, no pooled connection in use."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory

WAIT_S = 5.0


def _until(predicate: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def transport() -> httpx.AsyncHTTPTransport:
    return httpx.AsyncHTTPTransport()


@pytest.fixture
def proxy(proxy_factory: ProxyFactory, transport: httpx.AsyncHTTPTransport) -> RunningProxy:
    return proxy_factory(transport=transport)


def _assert_nothing_left(
    proxy: RunningProxy, emulator: RunningEmulator, transport: httpx.AsyncHTTPTransport
) -> None:
    def in_flight() -> float:
        text = httpx.get(f"{proxy.url}/metrics", timeout=5).text
        line = next(x for x in text.splitlines() if x.startswith("veriproxy_streams_in_flight"))
        return float(line.split()[-1])

    def busy_connections() -> int:
        return sum(not (c.is_idle() or c.is_closed()) for c in transport._pool.connections)

    assert _until(lambda: emulator.stats.streams_open == 0)
    assert _until(lambda: proxy.app.state.stream_slots.in_use("local") == 0)
    assert _until(lambda: in_flight() == 0)
    assert _until(lambda: busy_connections() == 0)


def _raw_request(proxy: RunningProxy, body: bytes, declared: int | None = None) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", _port(proxy)))
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        f"content-length: {declared if declared is not None else len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


def _read_until(sock: socket.socket, marker: bytes) -> None:
    received = b""
    while marker not in received:
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk


def _port(proxy: RunningProxy) -> int:
    return int(proxy.url.rsplit(":", 1)[1])


def _body(model: str, stream: bool) -> bytes:
    return json.dumps(
        {
            "model": model,
            "messages": [{"role": "user", "content": "a b c d e f g"}],
            "stream": stream,
        }
    ).encode()


def test_disconnect_while_sending_body(
    proxy: RunningProxy, emulator: RunningEmulator, transport: httpx.AsyncHTTPTransport
) -> None:
    body = _body("gpt-test", True)
    sock = _raw_request(proxy, body[:20], declared=len(body))
    time.sleep(0.1)
    sock.close()
    time.sleep(0.2)
    assert emulator.stats.requests == []
    _assert_nothing_left(proxy, emulator, transport)
    # The proxy still serves.
    assert httpx.get(f"{proxy.url}/healthz", timeout=5).status_code == 200


@pytest.mark.parametrize("stream", [False, True])
def test_disconnect_while_waiting_for_upstream(
    proxy: RunningProxy,
    emulator: RunningEmulator,
    transport: httpx.AsyncHTTPTransport,
    stream: bool,
) -> None:
    sock = _raw_request(proxy, _body("emu-slow-500,drip-100", stream))
    assert emulator.stats.wait_for(lambda s: len(s.requests) == 1)
    sock.close()
    _assert_nothing_left(proxy, emulator, transport)
    # A stream that would have run ~1 s more was cut short, not finished for nobody.
    assert emulator.stats.streams_completed == 0


def test_disconnect_mid_stream(
    proxy: RunningProxy, emulator: RunningEmulator, transport: httpx.AsyncHTTPTransport
) -> None:
    sock = _raw_request(proxy, _body("emu-drip-100", True))
    _read_until(sock, b"data: ")
    assert emulator.stats.wait_for(lambda s: s.streams_opened == 1)
    sock.close()
    assert emulator.stats.wait_for(lambda s: s.streams_cancelled == 1)
    _assert_nothing_left(proxy, emulator, transport)


def test_disconnect_after_done(
    proxy: RunningProxy, emulator: RunningEmulator, transport: httpx.AsyncHTTPTransport
) -> None:
    sock = _raw_request(proxy, _body("gpt-test", True))
    _read_until(sock, b"[DONE]")
    sock.close()
    assert emulator.stats.wait_for(lambda s: s.streams_completed == 1)
    _assert_nothing_left(proxy, emulator, transport)
