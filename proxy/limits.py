"""Request limits: what one request may ask for, and how many streams one key may hold open.

Every limit is configurable (``limits:`` in the configuration) and each breach raises its own
:class:`~proxy.errors.ProxyError` with a message that names the limit and its value:

* ``max_body_bytes`` (top-level setting, checked while reading): 413 ``request_too_large``
* ``max_messages``: 400 ``too_many_messages``            (:func:`check_request`)
* ``max_prompt_chars``: 400 ``prompt_too_large``         (:func:`check_request`)
* ``max_tokens``: 400 ``max_tokens_too_large``           (:func:`check_request`)

The three apply to every generating route: chat (messages, ``max_completion_tokens`` /
``max_tokens``), ``/v1/completions`` (each prompt of a batch is a message;
:func:`check_completions_request`) and ``/v1/responses`` (each ``input`` item is a message,
``instructions`` count as prompt, ``max_output_tokens``; :func:`check_responses_request`). A
token field that is not an integer (``"1000"``) is a 400, not passed on.
* ``max_streams_per_key``: 429 ``too_many_concurrent_streams`` (:class:`StreamSlots`)
* ``request_seconds``: 504 ``request_timeout``           (:func:`deadline`)
* ``stream_seconds``: a stream's whole time; past it the stream ends with a ``stream_timeout``
  error event and ``[DONE]`` (an upstream sending only keep-alives cannot hold it open)
* ``max_event_bytes``: one upstream SSE event, or one event litellm yields (chat and
  ``/v1/responses``); a longer one ends the stream (502)
* ``max_stream_bytes``: a whole upstream stream; past it the stream ends with a
  ``stream_too_long`` error event and ``[DONE]``, and a verified stream's report says why it is
  not verified (an upstream that streams without end cannot grow the proxy's memory)

``stream_seconds`` and ``max_stream_bytes`` bound every generating route's stream, in both
stream modes (:class:`BoundedStream`, beneath the stream transformers): chat, ``/v1/completions``
and ``/v1/responses`` (whose error event ends the stream without ``[DONE]``, as the Responses
API streams do).
* ``max_evidence_chars``: the ``evidence`` of one ``/v1/verify``, summed: 413
  ``evidence_too_large`` (a chat's client documents have their own bounds, 50 of 20,000
  characters: :mod:`proxy.evidence.documents`)
* ``max_upload_bytes``: 413 ``request_too_large``, counted as an upload streams through

Upstream connect/read/write timeouts are the ``timeouts:`` section (504 ``upstream_timeout``);
``retrieval.timeout_seconds`` and ``verification.timeout_seconds`` bound those stages, which
degrade (no evidence / unverified) rather than fail the request.

Stream slots are counted per proxy replica (a process-local counter, no network round trip);
a deployment with R replicas allows up to R times ``max_streams_per_key`` per key.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Generic, Protocol, TypeVar

from proxy.errors import InvalidRequest, PayloadTooLarge, ProxyError
from proxy.settings.limits import Limits as Limits
from proxy.streaming import DONE, ClosingStream, StreamChunk

T = TypeVar("T")

# Body fields that bound the completion's length (the newer name first).
MAX_TOKEN_FIELDS = ("max_completion_tokens", "max_tokens")


class LimitExceeded(InvalidRequest):
    """400: the request asks for more than a configured limit allows."""

    def __init__(self, message: str, *, code: str, param: str | None = None) -> None:
        super().__init__(message, param=param)
        self.code = code


class EvidenceTooLarge(PayloadTooLarge):
    """413: the evidence sent with one request is longer than ``max_evidence_chars``."""

    code = "evidence_too_large"


def check_evidence_chars(chars: int, limits: Limits, param: str) -> None:
    if chars > limits.max_evidence_chars:
        raise EvidenceTooLarge(
            f"the evidence's {chars} characters exceed the limit of {limits.max_evidence_chars}",
            param=param,
        )


class TooManyStreams(ProxyError):
    status = 429
    type = "rate_limit_exceeded"
    code = "too_many_concurrent_streams"


class StageTimeout(ProxyError):
    """504: one stage of the request ran past its configured time."""

    status = 504
    type = "timeout"

    def __init__(self, stage: str, seconds: float) -> None:
        super().__init__(f"{stage} did not finish within its limit of {seconds:g} s")
        self.code = f"{stage}_timeout"
        self.seconds = seconds


class StreamTooLong(ProxyError):
    """502: the upstream's stream went past ``max_stream_bytes``; the proxy stops reading it."""

    status = 502
    type = "upstream_error"
    code = "stream_too_long"

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upstream stream went past its limit of {limit} bytes")


def check_request(body: Mapping[str, Any], limits: Limits) -> None:
    """Raise :class:`LimitExceeded` if a validated chat body breaks a limit."""
    messages = body.get("messages") or []
    chars = sum(_content_chars(m.get("content")) for m in messages if isinstance(m, Mapping))
    _check_prompt(len(messages), chars, "messages", limits)
    _check_tokens(body, MAX_TOKEN_FIELDS, limits)


def check_completions_request(body: Mapping[str, Any], limits: Limits) -> None:
    """The same limits for ``/v1/completions``: a batch ``prompt`` counts one message per
    prompt, and ``max_tokens`` must be an integer."""
    prompt = body.get("prompt")
    prompts = prompt if isinstance(prompt, list) else [] if prompt is None else [prompt]
    _check_prompt(len(prompts), sum(map(_content_chars, prompts)), "prompt", limits)
    _check_tokens(body, ("max_tokens",), limits)


def check_responses_request(body: Mapping[str, Any], limits: Limits) -> None:
    """The same limits for ``/v1/responses``: each ``input`` item is a message, its text and
    the ``instructions`` count as the prompt, ``max_output_tokens`` bounds the answer."""
    given = body.get("input")
    items = given if isinstance(given, list) else [] if given is None else [given]
    chars = _content_chars(body.get("instructions")) + sum(map(_item_chars, items))
    _check_prompt(len(items), chars, "input", limits)
    _check_tokens(body, ("max_output_tokens",), limits)


def _item_chars(item: object) -> int:
    if isinstance(item, Mapping) and "content" in item:
        return _content_chars(item["content"])
    return _content_chars(item)


def _check_prompt(count: int, chars: int, param: str, limits: Limits) -> None:
    if count > limits.max_messages:
        raise LimitExceeded(
            f"{count} messages exceed the limit of {limits.max_messages}",
            code="too_many_messages",
            param=param,
        )
    if chars > limits.max_prompt_chars:
        raise LimitExceeded(
            f"the prompt's {chars} characters exceed the limit of {limits.max_prompt_chars}",
            code="prompt_too_large",
            param=param,
        )


def _check_tokens(body: Mapping[str, Any], names: tuple[str, ...], limits: Limits) -> None:
    """Each field of ``names`` is absent, null or a non-negative integer within the limit
    (``"1000"`` is refused, not passed on)."""
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidRequest(f"'{name}' must be a non-negative integer", param=name)
        if limits.max_tokens is not None and value > limits.max_tokens:
            raise LimitExceeded(
                f"{name}={value} exceeds the limit of {limits.max_tokens}",
                code="max_tokens_too_large",
                param=name,
            )


def _content_chars(content: object) -> int:
    """Characters of a message's content: a string, or the text of content parts."""
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(_content_chars(part.get("text")) for part in content if isinstance(part, dict))
    # Anything else (images, audio, tool payloads) is counted by its JSON size.
    return 0 if content is None else len(json.dumps(content, default=str))


@asynccontextmanager
async def deadline(stage: str, seconds: float) -> AsyncIterator[None]:
    """Run the block within ``seconds``; past it, cancel the block and raise StageTimeout."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise StageTimeout(stage, seconds) from None


class BoundedStream(Generic[T]):
    """An upstream stream held to ``seconds`` from its first read (``stream_seconds``: an
    upstream sending only keep-alives cannot hold it open) and to ``max_bytes`` in all
    (``max_stream_bytes``, each item counted by ``size``). Past either it raises
    :class:`StageTimeout` (``stream_timeout``) or :class:`StreamTooLong`; the caller turns
    that into its route's error event. A class, not a generator: left unfinished it needs no
    closing (the caller closes the upstream)."""

    __slots__ = ("_end", "_items", "_max_bytes", "_seconds", "_size", "received")

    def __init__(
        self, items: AsyncIterator[T], seconds: float, max_bytes: int, size: Callable[[T], int]
    ) -> None:
        self._items = items
        self._seconds = seconds
        self._max_bytes = max_bytes
        self._size = size
        self._end: float | None = None
        self.received = 0

    def __aiter__(self) -> BoundedStream[T]:
        return self

    async def __anext__(self) -> T:
        if self._end is None:
            self._end = asyncio.get_running_loop().time() + self._seconds
        try:
            async with asyncio.timeout_at(self._end):
                item = await anext(self._items)
        except TimeoutError:
            raise StageTimeout("stream", self._seconds) from None
        self.received += self._size(item)
        if self.received > self._max_bytes:
            raise StreamTooLong(self._max_bytes)
        return item


def raw_size(chunk: StreamChunk) -> int:
    """An SSE event's size as the upstream sent it (a :class:`BoundedStream` measure)."""
    return len(chunk.raw)


class _Closable(Protocol):
    def __aiter__(self) -> AsyncIterator[bytes]: ...

    async def aclose(self) -> None: ...


class StreamSlots:
    """Counts open streams per key; :meth:`acquire` refuses past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}

    def in_use(self, key: str) -> int:
        return self._open.get(key, 0)

    def acquire(self, key: str) -> StreamSlot:
        count = self._open.get(key, 0)
        if count >= self.limit:
            raise TooManyStreams(
                f"this key already has {count} streams open (limit {self.limit}); "
                "retry when one finishes"
            )
        self._open[key] = count + 1
        return StreamSlot(self, key)

    def _release(self, key: str) -> None:
        left = self._open[key] - 1
        if left:
            self._open[key] = left
        else:
            del self._open[key]


class StreamSlot:
    """One held slot. :meth:`release` is idempotent, so every exit path may call it."""

    __slots__ = ("_key", "_owner")

    def __init__(self, owner: StreamSlots, key: str) -> None:
        self._owner: StreamSlots | None = owner
        self._key = key

    def release(self) -> None:
        if self._owner is not None:
            self._owner._release(self._key)
            self._owner = None

    def hold(self, stream: _Closable) -> ClosingStream:
        """The stream, holding this slot until the stream is closed (even if never iterated)."""

        async def close() -> None:
            try:
                await stream.aclose()
            finally:
                self.release()

        return ClosingStream(self._relay(stream), close)

    async def _relay(self, stream: _Closable) -> AsyncIterator[bytes]:
        async for chunk in stream:
            if chunk.endswith(DONE):
                # Free the slot before the client sees the end, so a client that starts its
                # next stream the moment this one ends is not refused.
                self.release()
            yield chunk
