"""The pooled upstream transport: keep-alive reuse, idle connections the upstream closed, h2."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import time
from pathlib import Path

import httpcore
import httpx
import pytest

from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import ServerThread
from proxy.upstream._network import CoalescingBackend

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


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a test certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return key, cert


async def test_backend_speaks_tls(self_signed: tuple[Path, Path]) -> None:
    key, cert = self_signed
    context = ssl.create_default_context(cafile=str(cert))
    body = b'{"model": "m", "messages": [{"role": "user", "content": "over tls"}]}'
    with ServerThread(Emulator().app(), ssl_keyfile=str(key), ssl_certfile=str(cert)) as server:
        url = f"https://127.0.0.1:{server.port}/v1/chat/completions"
        async with httpcore.AsyncConnectionPool(
            ssl_context=context, network_backend=CoalescingBackend()
        ) as pool:
            for _ in range(2):  # the second request reuses the TLS connection
                response = await pool.request(
                    "POST", url, headers={"content-type": "application/json"}, content=body
                )
                assert response.status == 200
                assert b"over tls" in response.content
