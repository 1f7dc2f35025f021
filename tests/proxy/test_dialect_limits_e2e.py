"""The stream limits hold on every generating route (issue 26 item 5): ``/v1/completions`` and
``/v1/responses`` streams are cut at ``limits.max_stream_bytes`` and ``limits.stream_seconds``
as chat's are, in both stream modes, with an error event in the route's own streaming format
(completions: ``data: {"error": ...}`` then ``[DONE]``; Responses: the error event, never a
``response.completed``), and the audit record says why the answer is not verified. Through the
real proxy (bundled verifier, shipped policies) and the real openai SDK, from a hostile upstream
that never stops."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from proxy.testing.server_thread import RunningProxy
from tests.conftest import ProxyFactory, sdk_client
from tests.proxy.audit_helpers import one_audit_record
from tests.proxy.hostile_upstream import HostileUpstream, hostile_upstream
from tests.proxy.ibuprofen import VERIFICATION

LIMIT = 16 * 1024
PIECE = "metformin lowers hba1c "  # never a sentence end


def _completion_event(text: str) -> bytes:
    data = {
        "id": "cmpl-endless",
        "object": "text_completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"text": text, "index": 0, "logprobs": None, "finish_reason": None}],
    }
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def _response_event(number: int, data: dict[str, Any]) -> bytes:
    payload = {**data, "sequence_number": number}
    return f"event: {data['type']}\n".encode() + b"data: " + json.dumps(payload).encode() + b"\n\n"


def _response_opening() -> list[dict[str, Any]]:
    response = {
        "id": "resp_endless",
        "object": "response",
        "created_at": 1,
        "status": "in_progress",
        "model": "gpt-test",
        "output": [],
    }
    item = {"type": "message", "id": "msg_endless", "status": "in_progress", "role": "assistant"}
    part = {"type": "output_text", "text": "", "annotations": []}
    at = {"item_id": "msg_endless", "output_index": 0, "content_index": 0}
    return [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
        {"type": "response.content_part.added", **at, "part": part},
    ]


def _response_delta(text: str) -> dict[str, Any]:
    at = {"item_id": "msg_endless", "output_index": 0, "content_index": 0}
    return {"type": "response.output_text.delta", **at, "delta": text}


def _endless_completion() -> AsyncIterator[bytes]:
    """Sentence-less text, never ``[DONE]``: endless as far as the proxy can tell (it stops at
    ten times the limit only so that the server thread can shut down)."""
    return _repeat([], lambda _: _completion_event(PIECE))


def _endless_response() -> AsyncIterator[bytes]:
    opening = [_response_event(n, e) for n, e in enumerate(_response_opening())]
    return _repeat(opening, lambda n: _response_event(n, _response_delta(PIECE)))


async def _repeat(head: list[bytes], event: Callable[[int], bytes]) -> AsyncIterator[bytes]:
    sent = 0
    for number, data in enumerate(head):
        yield data
        sent = number + 1
    while sent < 10 * LIMIT // len(PIECE):
        yield event(sent)
        sent += 1
        await asyncio.sleep(0)


def _keep_alives(first: list[bytes]) -> Callable[[], AsyncIterator[bytes]]:
    """``first``, then only keep-alives (for 2 s, four times the deadline, so that a proxy
    without the deadline fails the test instead of hanging it)."""

    async def body() -> AsyncIterator[bytes]:
        for data in first:
            yield data
        for _ in range(40):
            yield b": keep-alive\n\n"
            await asyncio.sleep(0.05)

    return body


ROUTES = {
    "completions": (_endless_completion, [_completion_event("Hello")]),
    "responses": (
        _endless_response,
        [
            *(_response_event(n, e) for n, e in enumerate(_response_opening())),
            _response_event(4, _response_delta("Hello")),
        ],
    ),
}


@pytest.fixture
def endless() -> Iterator[tuple[HostileUpstream, str]]:
    with hostile_upstream() as running:
        yield running


def _stream(proxy: RunningProxy, route: str, policy: str | None) -> tuple[bytes, str]:
    """The bytes the SDK received, and the error the SDK raised while reading them."""
    client = sdk_client(proxy.base_url, timeout=60)
    extra = {"veriproxy": {"policy": policy}} if policy else None
    raw: Any
    if route == "completions":
        raw = client.completions.with_raw_response.create(
            model="gpt-test", prompt="hi", stream=True, extra_body=extra
        )
    else:
        raw = client.responses.with_raw_response.create(
            model="gpt-test", input="hi", stream=True, extra_body=extra
        )
    received: bytes = raw.http_response.read()
    with pytest.raises(openai.APIError) as caught:
        for _ in raw.parse():
            pass
    return received, caught.value.message


def _ends_in_the_routes_error_event(received: bytes, route: str, code: str) -> dict[str, Any]:
    events = [e for e in received.split(b"\n\n") if e]
    if route == "completions":
        assert events[-1] == b"data: [DONE]"
        events.pop()
    else:  # Responses streams have no [DONE], and this one never completed
        assert b"[DONE]" not in received and b'"type":"response.completed"' not in received
    error: dict[str, Any] = json.loads(events[-1].removeprefix(b"data: "))["error"]
    assert error["code"] == code
    return error


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize(
    ("policy", "status"),
    [
        ("research", "unverified"),  # annotate, on_verifier_error: open
        ("clinical-strict", "blocked"),  # gate, on_verifier_error: closed
    ],
)
def test_an_endless_dialect_stream_is_cut_at_max_stream_bytes(
    proxy_factory: ProxyFactory,
    endless: tuple[HostileUpstream, str],
    tmp_path: Path,
    route: str,
    policy: str,
    status: str,
) -> None:
    upstream, base_url = endless
    upstream.answer(ROUTES[route][0])
    audit = tmp_path / "audit.jsonl"
    proxy = proxy_factory(
        {
            "default_upstream": {"base_url": base_url},
            "verification": VERIFICATION,
            "limits": {"max_stream_bytes": LIMIT},
            "audit": {"jsonl": str(audit)},
        }
    )
    received, message = _stream(proxy, route, policy)
    error = _ends_in_the_routes_error_event(received, route, "stream_too_long")
    assert str(LIMIT) in error["message"] and str(LIMIT) in message
    assert len(received) <= 2 * LIMIT  # read no further than the limit
    record = one_audit_record(audit)
    assert record["status"] == status
    assert "stream_too_long" in (record["error"] or "")


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_keep_alive_dialect_stream_hits_the_stream_deadline(
    proxy_factory: ProxyFactory, endless: tuple[HostileUpstream, str], route: str
) -> None:
    upstream, base_url = endless
    upstream.answer(_keep_alives(ROUTES[route][1]))
    proxy = proxy_factory(
        {"default_upstream": {"base_url": base_url}, "limits": {"stream_seconds": 0.5}}
    )
    received, message = _stream(proxy, route, None)
    error = _ends_in_the_routes_error_event(received, route, "stream_timeout")
    assert "0.5 s" in error["message"] and "0.5 s" in message
    assert b"Hello" in received  # what came before the deadline was relayed
