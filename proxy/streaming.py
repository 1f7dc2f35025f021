"""Server-sent events: framing upstream bytes into chunks, encoding ours, and the response.

A :class:`StreamChunk` keeps the upstream's exact bytes (``raw``) next to the parsed payload,
so an untouched chunk is forwarded byte-for-byte; a chunk built by a transformer
(:meth:`StreamChunk.from_data`) is encoded as ``data: {json}\\n\\n``. ``[DONE]`` is not a chunk:
the chat service writes it last.

:class:`SSEResponse` is a :class:`ClosingResponse` (which any streamed relay may use):
Starlette's ``StreamingResponse`` with two guarantees the base class does not give under
every ASGI version: it always races the body against the client's ``http.disconnect`` (so
a client that goes away cancels the upstream read at once, event-driven, no polling), and it
always ``aclose()``\\ s the body iterator, so the upstream response context exits even when
the client vanished before the first chunk. ``text/event-stream`` is never compressed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from proxy.errors import UpstreamProtocolError
from proxy.settings.limits import DEFAULT_MAX_EVENT_BYTES as DEFAULT_MAX_EVENT_BYTES

DONE = b"data: [DONE]\n\n"
SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


@dataclass(frozen=True)
class StreamChunk:
    """One SSE event. ``data`` is the parsed JSON payload, or None for comments/keep-alives."""

    raw: bytes
    data_text: str | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> StreamChunk:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return cls(raw=b"data: " + _utf8(text) + b"\n\n", data_text=text)

    @cached_property
    def data(self) -> dict[str, Any] | None:
        if self.data_text is None:
            return None
        try:
            value = json.loads(self.data_text)
        except ValueError:
            raise UpstreamProtocolError("upstream sent a stream event that is not JSON") from None
        if not isinstance(value, dict):
            raise UpstreamProtocolError("upstream stream event is not a JSON object")
        return value

    @property
    def is_done(self) -> bool:
        return self.data_text is not None and self.data_text.strip() == "[DONE]"


def json_bytes(data: object) -> bytes:
    """Compact JSON as UTF-8, whatever strings it holds (see :func:`_utf8`)."""
    return _utf8(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _utf8(json_text: str) -> bytes:
    """Encode JSON text; a lone surrogate (an upstream may send ``"\\ud800"``) is written back as
    the same ``\\uXXXX`` escape it came in as (it can only sit inside a JSON string), instead of
    failing the response. U+0085, U+2028 and U+2029 are escaped too: SSE lines end only at CR
    or LF, but ``str.splitlines`` and httpx's ``iter_lines`` also cut at these, which would cut
    an event's JSON in two for a client that reads lines so."""
    return json_text.translate(_LINE_SEPARATORS).encode("utf-8", "backslashreplace")


_LINE_SEPARATORS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def error_event(body: Mapping[str, Any]) -> bytes:
    """The terminal error event OpenAI-style streams end with (followed by ``[DONE]``)."""
    return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"


def event_too_large(limit: int) -> UpstreamProtocolError:
    """The error that ends a stream whose upstream sent one event over ``max_event_bytes``
    (read from SSE bytes here, or from litellm's parsed events)."""
    return UpstreamProtocolError(f"upstream sent a stream event over the limit of {limit} bytes")


class SSEFramer:
    """Splits a byte stream into SSE events at blank lines, keeping each event's exact bytes.

    An event longer than ``max_event_bytes`` raises :class:`UpstreamProtocolError` (a hostile
    or broken upstream must not make the proxy buffer without end); the buffer is searched only
    past what was searched before, so a long event costs linear time.
    """

    __slots__ = ("_buffer", "_max", "_scanned")

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._buffer = b""
        self._max = max_event_bytes
        self._scanned = 0  # the buffer holds no event end before this offset

    def feed(self, data: bytes) -> list[StreamChunk]:
        self._buffer += data
        events: list[StreamChunk] = []
        while True:
            end, sep_len = _event_end(self._buffer, self._scanned)
            if end < 0:
                # A separator may straddle the next read: rescan its possible first bytes.
                self._scanned = max(0, len(self._buffer) - 3)
                if len(self._buffer) > self._max:
                    raise event_too_large(self._max)
                return events
            raw = self._buffer[: end + sep_len]
            self._buffer = self._buffer[end + sep_len :]
            self._scanned = 0
            events.append(StreamChunk(raw=raw, data_text=self._payload(raw[:end])))

    @property
    def pending(self) -> bytes:
        """Bytes of an unterminated event (non-empty at EOF means the stream was cut)."""
        return self._buffer

    @staticmethod
    def _payload(block: bytes) -> str | None:
        lines = block.replace(b"\r\n", b"\n").split(b"\n")
        data = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
        if not data:
            return None
        return b"\n".join(data).decode("utf-8", "replace")


def _event_end(buffer: bytes, start: int = 0) -> tuple[int, int]:
    lf = buffer.find(b"\n\n", start)
    crlf = buffer.find(b"\r\n\r\n", start)
    if crlf >= 0 and (lf < 0 or crlf < lf):
        return crlf, 4
    return lf, 2


async def frame_sse(
    byte_stream: AsyncIterator[bytes], max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
) -> AsyncIterator[StreamChunk]:
    """SSE events from a byte stream; raises :class:`UpstreamProtocolError` on a cut stream
    or an event over ``max_event_bytes``."""
    framer = SSEFramer(max_event_bytes)
    async for data in byte_stream:
        for chunk in framer.feed(data):
            yield chunk
    if framer.pending.strip():
        raise UpstreamProtocolError("upstream stream ended in the middle of an event")


class ClosingStream:
    """A byte stream that runs ``on_close`` when closed, even if never iterated: a generator's
    ``finally`` would not do (a generator closed before its first step never runs it)."""

    def __init__(self, body: AsyncIterator[bytes], on_close: Callable[[], Awaitable[None]]) -> None:
        self._body = body
        self._on_close = on_close

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._body

    async def aclose(self) -> None:
        try:
            aclose = getattr(self._body, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            await self._on_close()


class ClosingResponse(StreamingResponse):
    """A streamed body that is always closed, and cancelled when the client disconnects."""

    def __init__(
        self,
        content: AsyncIterable[bytes],
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
    ) -> None:
        super().__init__(content, status_code, headers=headers, media_type=media_type)
        self._content = content

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as tg:

                async def stream_then_stop() -> None:
                    await self.stream_response(send)
                    tg.cancel_scope.cancel()

                async def wait_disconnect_then_stop() -> None:
                    await self.listen_for_disconnect(receive)
                    tg.cancel_scope.cancel()

                tg.start_soon(stream_then_stop)
                tg.start_soon(wait_disconnect_then_stop)
        except* OSError:
            # The client went away while we were sending; nothing left to tell it.
            pass
        finally:
            aclose = getattr(self._content, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


class SSEResponse(ClosingResponse):
    media_type = "text/event-stream"

    def __init__(
        self, content: AsyncIterable[bytes], headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(content, headers={**SSE_HEADERS, **(headers or {})})
