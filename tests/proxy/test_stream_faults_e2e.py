"""Streams that go wrong: an upstream that dies or garbles mid-stream, a client that leaves."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client

MESSAGES = [{"role": "user", "content": "one two three four five six seven eight"}]


def stream_events(proxy: RunningProxy, model: str) -> list[bytes]:
    body = {"model": model, "messages": MESSAGES, "stream": True}
    with httpx.stream("POST", f"{proxy.base_url}/chat/completions", json=body, timeout=10) as r:
        assert r.status_code == 200
        raw = b"".join(r.iter_bytes())
    return [event for event in raw.split(b"\n\n") if event]


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("die", "upstream_unavailable"),
        ("malformed", "upstream_protocol_error"),
        ("nodone", "upstream_protocol_error"),
    ],
)
def test_mid_stream_failure_ends_with_error_event_then_done(
    proxy: RunningProxy, mode: str, code: str
) -> None:
    events = stream_events(proxy, f"emu-{mode}")
    assert events[-1] == b"data: [DONE]"
    error = json.loads(events[-2].removeprefix(b"data: "))["error"]
    assert error["code"] == code
    assert set(error) == {"message", "type", "param", "code"}
    # What arrived before the failure was passed on untouched.
    first = json.loads(events[0].removeprefix(b"data: "))
    assert first["object"] == "chat.completion.chunk"


def test_sdk_raises_on_mid_stream_error(proxy: RunningProxy) -> None:
    client = sdk_client(proxy.base_url, "k")
    stream = client.chat.completions.create(model="emu-die", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError, match="upstream closed the connection"):
        for _ in stream:
            pass


@pytest.mark.parametrize("read_first", [True, False])
def test_client_disconnect_cancels_upstream(
    proxy: RunningProxy, emulator: RunningEmulator, read_first: bool
) -> None:
    body = {"model": "emu-drip-200", "messages": MESSAGES, "stream": True}
    url = f"{proxy.base_url}/chat/completions"
    with httpx.Client(timeout=10) as client, client.stream("POST", url, json=body) as r:
        assert r.status_code == 200
        if read_first:
            next(r.iter_raw())
        assert emulator.stats.wait_for(lambda s: s.streams_opened == 1)
    # Leaving the block closes the connection mid-stream (the body was not read to the end).
    assert emulator.stats.wait_for(lambda s: s.streams_cancelled == 1, timeout=5)
    assert emulator.stats.streams_completed == 0
    assert emulator.stats.streams_open == 0


async def test_async_sdk_close_cancels_upstream(
    proxy: RunningProxy, emulator: RunningEmulator
) -> None:
    async with openai.AsyncOpenAI(base_url=proxy.base_url, api_key="k", max_retries=0) as c:
        stream = await c.chat.completions.create(
            model="emu-drip-200", messages=MESSAGES, stream=True
        )
        async for _chunk in stream:
            break
        await stream.close()
    assert emulator.stats.wait_for(lambda s: s.streams_cancelled == 1, timeout=5)
    assert emulator.stats.streams_completed == 0


def test_completed_stream_is_not_cancelled(proxy: RunningProxy, emulator: RunningEmulator) -> None:
    events = stream_events(proxy, "m")
    assert events[-1] == b"data: [DONE]"
    assert emulator.stats.wait_for(lambda s: s.streams_completed == 1)
    assert emulator.stats.streams_cancelled == 0
