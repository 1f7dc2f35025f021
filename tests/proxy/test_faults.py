"""Upstream faults through a real proxy in front of the real emulator: every failure reaches
the client as an OpenAI-style error (an HTTP status before the stream, a terminal error event
and ``[DONE]`` during it), retries happen only before the first byte, and nothing is left open.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.conftest import ProxyFactory, RunningEmulator, RunningProxy

FAST_RETRY = {"retry": {"max_attempts": 3, "backoff_seconds": 0.01, "max_backoff_seconds": 0.05}}


def _chat(model: str = "gpt-test", *, stream: bool = False) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hi there"}], "stream": stream}


def _sse_payloads(text: str) -> list[str]:
    return [line[6:] for line in text.splitlines() if line.startswith("data: ")]


def _post(proxy: RunningProxy, body: dict[str, Any], mode: str = "") -> httpx.Response:
    """POST a chat request; ``mode`` picks emulator faults through the model name."""
    if mode:
        body = {**body, "model": f"emu-{mode}"}
    return httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=10)


def _assert_envelope(error: dict[str, Any]) -> None:
    assert set(error) == {"message", "type", "param", "code"}
    assert isinstance(error["message"], str) and error["message"]


def _stream_error(resp: httpx.Response) -> dict[str, Any]:
    """The stream ended with one error event then [DONE]; return the error."""
    assert resp.status_code == 200
    payloads = _sse_payloads(resp.text)
    assert payloads[-1] == "[DONE]"
    last = json.loads(payloads[-2])
    _assert_envelope(last["error"])
    return last["error"]


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_500_is_relayed_without_retry(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, stream: bool
) -> None:
    proxy = proxy_factory(FAST_RETRY)
    resp = _post(proxy, _chat(stream=stream), "error-500")
    assert resp.status_code == 500
    _assert_envelope(resp.json()["error"])
    assert len(emulator.stats.requests) == 1


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("stream", [False, True])
def test_retryable_status_is_retried_then_relayed(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, status: int, stream: bool
) -> None:
    proxy = proxy_factory(FAST_RETRY)
    resp = _post(proxy, _chat(stream=stream), f"error-{status}")
    assert resp.status_code == status
    error = resp.json()["error"]
    _assert_envelope(error)
    assert error["message"] == f"emulated error {status}"
    assert len(emulator.stats.requests) == 3


@pytest.mark.parametrize("stream", [False, True])
def test_429_then_success_answers_normally(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, stream: bool
) -> None:
    proxy = proxy_factory(FAST_RETRY)
    resp = _post(proxy, _chat(stream=stream), "error-429,first-2")
    assert resp.status_code == 200
    assert len(emulator.stats.requests) == 3
    if stream:
        assert _sse_payloads(resp.text)[-1] == "[DONE]"
        assert "hi" in resp.text
    else:
        assert resp.json()["choices"][0]["message"]["content"] == "hi there"


def test_no_retry_when_disabled(proxy_factory: ProxyFactory, emulator: RunningEmulator) -> None:
    proxy = proxy_factory({"retry": {"max_attempts": 1}})
    assert _post(proxy, _chat(), "error-429").status_code == 429
    assert len(emulator.stats.requests) == 1


@pytest.mark.parametrize("stream", [False, True])
def test_timeout_before_first_byte(proxy_factory: ProxyFactory, stream: bool) -> None:
    proxy = proxy_factory({"timeouts": {"read": 0.3}})
    resp = _post(proxy, _chat(stream=stream), "slow-3000")
    assert resp.status_code == 504
    error = resp.json()["error"]
    _assert_envelope(error)
    assert error["code"] == "upstream_timeout"


def test_timeout_during_stream(proxy_factory: ProxyFactory, emulator: RunningEmulator) -> None:
    proxy = proxy_factory({"timeouts": {"read": 0.3}})
    resp = _post(proxy, _chat(stream=True), "drip-3000")
    assert _stream_error(resp)["code"] == "upstream_timeout"
    assert emulator.stats.wait_for(lambda s: s.streams_open == 0)


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("malformed", "upstream_protocol_error"),
        ("nodone", "upstream_protocol_error"),
        ("die", "upstream_unavailable"),
    ],
)
def test_broken_stream_ends_with_error_event(
    proxy: RunningProxy, emulator: RunningEmulator, mode: str, code: str
) -> None:
    resp = _post(proxy, _chat(stream=True), mode)
    assert _stream_error(resp)["code"] == code
    # Some content made it through before the fault.
    assert any('"content"' in p for p in _sse_payloads(resp.text))
    assert emulator.stats.wait_for(lambda s: s.streams_open == 0)


@pytest.mark.parametrize("mode", ["die", "malformed"])
def test_broken_completion_is_an_error(proxy: RunningProxy, mode: str) -> None:
    resp = _post(proxy, _chat(), mode)
    assert resp.status_code == 502
    _assert_envelope(resp.json()["error"])


def test_unreachable_upstream(proxy_factory: ProxyFactory) -> None:
    proxy = proxy_factory({"default_upstream": {"base_url": "http://127.0.0.1:1/v1"}, **FAST_RETRY})
    resp = _post(proxy, _chat())
    assert resp.status_code == 502
    assert resp.json()["error"]["code"] == "upstream_unavailable"
