"""SSE framing, and SSEResponse at the ASGI level: disconnects close the body at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from proxy.errors import UpstreamProtocolError
from proxy.streaming import SSEFramer, SSEResponse, StreamChunk, frame_sse, json_bytes


def test_framer_keeps_exact_bytes_across_reads() -> None:
    stream = b'data: {"a": 1}\n\n: keep-alive\n\ndata: {"b":\r\n\r\ndata: [DONE]\n\n'
    framer = SSEFramer()
    events: list[StreamChunk] = []
    for i in range(0, len(stream), 3):  # split at awkward places
        events += framer.feed(stream[i : i + 3])
    assert b"".join(e.raw for e in events) == stream
    assert [e.data_text for e in events] == ['{"a": 1}', None, '{"b":', "[DONE]"]
    assert events[0].data == {"a": 1}
    assert events[3].is_done
    with pytest.raises(UpstreamProtocolError):
        _ = events[2].data
    assert framer.pending == b""


def test_multiline_data_is_joined() -> None:
    (event,) = SSEFramer().feed(b'event: x\ndata: {"a":\ndata: 2}\n\n')
    assert event.data == {"a": 2}


async def test_cut_stream_raises() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield b'data: {"a": 1}\n\ndata: {"b"'

    seen = []
    with pytest.raises(UpstreamProtocolError):
        async for chunk in frame_sse(source()):
            seen.append(chunk)
    assert len(seen) == 1


def test_from_data_encodes_one_event() -> None:
    chunk = StreamChunk.from_data({"choices": [], "verification": {"ok": True}})
    assert chunk.raw == b'data: {"choices":[],"verification":{"ok":true}}\n\n'
    assert chunk.data == {"choices": [], "verification": {"ok": True}}


class Body:
    """A body that yields once, then waits forever; records whether it was closed."""

    def __init__(self) -> None:
        self.closed = asyncio.Event()

    def __aiter__(self) -> Body:
        return self

    async def __anext__(self) -> bytes:
        if not hasattr(self, "_sent"):
            self._sent = True
            return b"data: {}\n\n"
        await asyncio.Event().wait()
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.closed.set()


@pytest.mark.parametrize("spec_version", ["2.3", "2.4"])
async def test_disconnect_closes_body_at_once(spec_version: str) -> None:
    body = Body()
    sent: list[dict[str, object]] = []
    disconnect = asyncio.Event()

    async def receive() -> dict[str, object]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)
        if message.get("body"):
            disconnect.set()  # the client leaves after the first chunk

    scope = {"type": "http", "asgi": {"spec_version": spec_version}}
    await asyncio.wait_for(SSEResponse(body)(scope, receive, send), timeout=5)  # type: ignore[arg-type]
    assert body.closed.is_set()
    assert sent[0]["type"] == "http.response.start"
    headers = dict(sent[0]["headers"])  # type: ignore[arg-type]
    assert headers[b"content-type"].startswith(b"text/event-stream")


async def test_body_closed_even_if_never_iterated() -> None:
    body = Body()

    async def receive() -> dict[str, object]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        raise OSError("client gone")

    await SSEResponse(body)({"type": "http"}, receive, send)  # type: ignore[arg-type]
    assert body.closed.is_set()


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])
def test_unicode_line_separators_never_cut_an_event(separator: str) -> None:
    # str.splitlines and httpx's iter_lines cut at these; SSE does not, so they go escaped.
    data = {"content": f"0{separator}0", "nested": [f"a{separator}"]}
    event = StreamChunk.from_data(data).raw.decode("utf-8")
    (line, blank) = event.splitlines()
    assert blank == "" and json.loads(line.removeprefix("data: ")) == data
    assert json.loads(json_bytes(data).decode("utf-8")) == data
    assert separator not in json_bytes(data).decode("utf-8")
