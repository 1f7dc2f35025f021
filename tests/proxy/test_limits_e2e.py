"""Limits through the real proxy: each breach is its own OpenAI-style error, stream slots are
per key and come back when a stream ends, and the request deadline answers 504 in time."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from proxy.auth import FileKeyStore, new_key
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory

_USER = {"role": "user", "content": "hi"}


def _chat(model: str = "gpt-test", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}


def _error(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    error = resp.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return error


@pytest.mark.parametrize(
    ("config", "body", "status", "code"),
    [
        ({"limits": {"max_messages": 1}}, _chat(messages=[_USER] * 2), 400, "too_many_messages"),
        ({"limits": {"max_prompt_chars": 3}}, _chat(), 400, "prompt_too_large"),
        ({"limits": {"max_tokens": 8}}, _chat(max_tokens=9), 400, "max_tokens_too_large"),
        ({"max_body_bytes": 64}, _chat(pad="x" * 100), 413, "request_too_large"),
    ],
)  # fmt: skip
def test_each_limit_is_a_clear_error(
    proxy_factory: ProxyFactory,
    emulator: RunningEmulator,
    config: dict[str, Any],
    body: dict[str, Any],
    status: int,
    code: str,
) -> None:
    proxy = proxy_factory(config)
    resp = httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=10)
    error = _error(resp, status)
    assert error["code"] == code and "limit" in error["message"]
    assert emulator.stats.requests == []


LIMITS = {"limits": {"max_tokens": 100, "max_prompt_chars": 1000, "max_messages": 5}}
_ITEM = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("route", "extra", "code", "param"),
    [
        (
            "responses",
            {"input": "q", "max_output_tokens": 100000},
            "max_tokens_too_large",
            "max_output_tokens",
        ),
        ("responses", {"input": "x" * 5000}, "prompt_too_large", "input"),
        ("responses", {"input": [_ITEM] * 50}, "too_many_messages", "input"),
        ("responses", {"input": "q", "instructions": "x" * 5000}, "prompt_too_large", "input"),
        ("completions", {"prompt": "q", "max_tokens": "1000"}, None, "max_tokens"),
        ("completions", {"prompt": "q", "max_tokens": 101}, "max_tokens_too_large", "max_tokens"),
        ("completions", {"prompt": "x" * 5000}, "prompt_too_large", "prompt"),
        ("completions", {"prompt": ["q"] * 6}, "too_many_messages", "prompt"),
    ],
)  # fmt: skip
def test_limits_hold_on_every_generating_route(
    proxy_factory: ProxyFactory,
    emulator: RunningEmulator,
    route: str,
    extra: dict[str, Any],
    code: str | None,
    param: str,
) -> None:
    """Issue 26 item 15: Responses and legacy completions forwarded these unchanged."""
    proxy = proxy_factory(LIMITS)
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-x", max_retries=0)
    with client, pytest.raises(openai.BadRequestError) as caught:
        if route == "responses":
            client.responses.create(model="gpt-test", **extra)
        else:
            client.completions.create(model="gpt-test", **extra)
    assert caught.value.code == code and caught.value.param == param
    assert emulator.stats.requests == []


def _open_stream(client: httpx.Client, proxy: RunningProxy, key: str) -> httpx.Response:
    request = client.build_request(
        "POST",
        f"{proxy.base_url}/chat/completions",
        json=_chat("emu-drip-200", stream=True),
        headers={"authorization": f"Bearer {key}"},
    )
    return client.send(request, stream=True)


def test_concurrent_streams_per_key(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    key_a, record_a = new_key("acme")
    key_b, record_b = new_key("globex")
    asyncio.run(FileKeyStore(store).put(record_a))
    asyncio.run(FileKeyStore(store).put(record_b))
    proxy = proxy_factory({"auth": {"store": str(store)}, "limits": {"max_streams_per_key": 1}})
    with httpx.Client(timeout=10) as client:
        first = _open_stream(client, proxy, key_a)
        assert first.status_code == 200
        refused = _open_stream(client, proxy, key_a)
        refused.read()
        error = _error(refused, 429)
        assert error["code"] == "too_many_concurrent_streams"
        other = _open_stream(client, proxy, key_b)  # another key has its own slots
        assert other.status_code == 200
        other.close()
        first.close()  # client goes away mid-stream: the slot must come back
        slots = proxy.app.state.stream_slots
        deadline = time.monotonic() + 5
        while slots.in_use(record_a.key_id) and time.monotonic() < deadline:
            time.sleep(0.02)
        again = _open_stream(client, proxy, key_a)
        assert again.status_code == 200
        again.read()
    assert slots.in_use(record_a.key_id) == 0 and slots.in_use(record_b.key_id) == 0


@pytest.mark.parametrize("stream", [False, True])
def test_request_deadline(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, stream: bool
) -> None:
    proxy = proxy_factory({"limits": {"request_seconds": 0.3}})
    resp = httpx.post(
        f"{proxy.base_url}/chat/completions", json=_chat("emu-slow-3000", stream=stream), timeout=10
    )
    error = _error(resp, 504)
    assert error["code"] == "request_timeout" and "0.3 s" in error["message"]
    assert proxy.app.state.stream_slots.in_use("local") == 0
