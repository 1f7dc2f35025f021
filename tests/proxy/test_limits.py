"""Limit checks, the per-key stream semaphore and stage deadlines."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from proxy.config import settings_from_mapping
from proxy.errors import error_body
from proxy.limits import (
    LimitExceeded,
    Limits,
    StageTimeout,
    StreamSlots,
    TooManyStreams,
    check_request,
    deadline,
)
from proxy.streaming import DONE


def _body(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hello"}], **extra}


def test_request_within_limits_passes() -> None:
    check_request(_body(max_tokens=10), Limits(max_tokens=10))


@pytest.mark.parametrize(
    ("body", "limits", "code", "param"),
    [
        (
            {"messages": [{"role": "user", "content": "x"}] * 3},
            Limits(max_messages=2),
            "too_many_messages",
            "messages",
        ),
        (_body(), Limits(max_prompt_chars=4), "prompt_too_large", "messages"),
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "abcdef"}]}]},
            Limits(max_prompt_chars=5),
            "prompt_too_large",
            "messages",
        ),
        (_body(max_tokens=11), Limits(max_tokens=10), "max_tokens_too_large", "max_tokens"),
        (
            _body(max_completion_tokens=11),
            Limits(max_tokens=10),
            "max_tokens_too_large",
            "max_completion_tokens",
        ),
    ],
)
def test_each_limit_has_its_own_error(
    body: dict[str, Any], limits: Limits, code: str, param: str
) -> None:
    with pytest.raises(LimitExceeded) as info:
        check_request(body, limits)
    status, envelope = error_body(info.value)
    assert status == 400
    assert envelope["error"]["code"] == code
    assert envelope["error"]["param"] == param
    assert "limit" in envelope["error"]["message"]


def test_no_token_cap_by_default() -> None:
    check_request(_body(max_tokens=10**9), Limits())


class _Stream:
    def __init__(self) -> None:
        self.closed = False

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[bytes]:
        yield b"data: x\n\n"

    async def aclose(self) -> None:
        self.closed = True


async def test_stream_slots_per_key_and_release_on_close() -> None:
    slots = StreamSlots(2)
    first = slots.acquire("a").hold(_Stream())
    second = slots.acquire("a").hold(_Stream())
    slots.acquire("b").release()
    with pytest.raises(TooManyStreams) as info:
        slots.acquire("a")
    assert error_body(info.value)[0] == 429
    assert "limit 2" in info.value.message
    # Closed without ever being iterated: the slot still comes back.
    await first.aclose()
    assert slots.in_use("a") == 1
    chunks = [c async for c in second]
    assert chunks == [b"data: x\n\n"]
    await second.aclose()
    await second.aclose()
    assert slots.in_use("a") == 0 and slots.in_use("b") == 0


async def test_slot_is_free_before_the_client_sees_done() -> None:
    slots = StreamSlots(1)

    class _Done(_Stream):
        async def _gen(self) -> AsyncIterator[bytes]:
            yield b"data: {}\n\n"
            yield DONE

    held = slots.acquire("a").hold(_Done())
    seen = []
    async for chunk in held:
        seen.append((chunk, slots.in_use("a")))
    assert seen == [(b"data: {}\n\n", 1), (DONE, 0)]
    await held.aclose()
    assert slots.in_use("a") == 0


async def test_deadline_cancels_and_names_the_stage() -> None:
    cancelled = asyncio.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(StageTimeout) as info:
        async with deadline("request", 0.01):
            await slow()
    assert cancelled.is_set()
    status, envelope = error_body(info.value)
    assert status == 504 and envelope["error"]["code"] == "request_timeout"
    async with deadline("request", 1.0):
        await asyncio.sleep(0)


def test_documented_security_settings_validate() -> None:
    """Every YAML block in docs/security.md is a valid configuration (docs cannot drift)."""
    text = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    for block in blocks:
        settings_from_mapping(yaml.safe_load(block), {"OPENAI_API_KEY": "set"})
