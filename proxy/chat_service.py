"""The work behind ``POST /v1/chat/completions``, callable without HTTP.

``ChatService.complete`` returns the response bytes; ``ChatService.open_stream`` returns the
SSE byte stream. Both run the extension chains of :mod:`proxy.extensions`:

    preparers -> upstream -> (stream: transformers | non-stream: finalisers) -> client

Both run within the request deadline (``limits.request_seconds``: to the whole answer, or to the
stream's start). A :class:`~proxy.errors.ProxyError` raised before an answer exists is told to
the extensions' failure observers (verification audits it), then raised: the route answers
with its HTTP error status. Streams: after the first chunk nothing raises -- an upstream that
fails mid-stream ends the client's stream with an OpenAI-style error event and ``data: [DONE]``.
The returned :class:`~proxy.streaming.ClosingStream` owns the upstream response: closing it
(end of stream, client disconnect, transformer stopping early) closes the upstream request at
once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace

from proxy.errors import (
    ProxyError,
    UpstreamError,
    UpstreamProtocolError,
    UpstreamStreamError,
    error_body,
)
from proxy.extensions import NO_EXTENSIONS, Extensions, RequestContext
from proxy.limits import BoundedStream, deadline, raw_size
from proxy.metrics import Metrics
from proxy.protocol import ChatRequest
from proxy.retry import DEFAULT_RETRY, RetryPolicy, with_retries
from proxy.scrub import Scrubber
from proxy.settings.limits import (
    DEFAULT_MAX_STREAM_BYTES,
    DEFAULT_REQUEST_SECONDS,
    DEFAULT_STREAM_SECONDS,
)
from proxy.streaming import DONE, ClosingStream, StreamChunk, error_event, json_bytes
from proxy.upstream import UpstreamRouter

logger = logging.getLogger("veriproxy.chat")


@dataclass(frozen=True, slots=True)
class ChatResponse:
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@asynccontextmanager
async def attempt(
    extensions: Extensions, ctx: RequestContext, seconds: float
) -> AsyncIterator[None]:
    """Run the block within the request deadline; a :class:`ProxyError` it raises is told to
    the failure observers before it propagates."""
    try:
        async with deadline("request", seconds):
            yield
    except ProxyError as exc:
        extensions.failed(exc, ctx)
        raise


class ChatService:
    def __init__(
        self,
        router: UpstreamRouter,
        metrics: Metrics,
        extensions: Extensions = NO_EXTENSIONS,
        secrets: tuple[str, ...] = (),
        retry: RetryPolicy = DEFAULT_RETRY,
        stream_seconds: float = DEFAULT_STREAM_SECONDS,
        request_seconds: float = DEFAULT_REQUEST_SECONDS,
        max_stream_bytes: int = DEFAULT_MAX_STREAM_BYTES,
    ) -> None:
        self._retry = retry
        self._max_stream_bytes = max_stream_bytes
        self._request_seconds = request_seconds
        self._stream_seconds = stream_seconds
        self._router = router
        self._metrics = metrics
        self._extensions = extensions
        self._secrets = secrets
        self._scrub = Scrubber(secrets)

    async def _prepare(self, request: ChatRequest, ctx: RequestContext) -> ChatRequest:
        for preparer in self._extensions.preparers:
            request = await preparer.prepare(request, ctx)
        return request

    async def complete(
        self, request: ChatRequest, ctx: RequestContext, headers: Mapping[str, str]
    ) -> ChatResponse:
        """The answer's bytes and headers: the upstream's relayed ones, then the finalisers'."""
        async with attempt(self._extensions, ctx, self._request_seconds):
            response = await self._complete(request, ctx, headers)
        return replace(response, headers=(*response.headers, *ctx.state.response_headers.items()))

    async def _complete(
        self, request: ChatRequest, ctx: RequestContext, headers: Mapping[str, str]
    ) -> ChatResponse:
        route = self._router.resolve(request.model)
        request = await self._prepare(request, ctx)
        started = time.perf_counter()
        try:
            completion = await with_retries(
                lambda: route.upstream.complete(request, headers), self._retry
            )
            data = completion.data  # parsed even when unused: a broken body is a 502, not a 200
        except UpstreamError as exc:
            self._metrics.upstream_error(exc, route.label)
            raise
        self._metrics.observe_stage("upstream_total", time.perf_counter() - started)
        relayed = self._scrub.headers(completion.headers)
        if not self._extensions.finalisers:
            return ChatResponse(self._scrub.raw(completion.raw), relayed)
        for finaliser in self._extensions.finalisers:
            data = await finaliser.finalise(data, ctx)
        return ChatResponse(self._scrub.raw(json_bytes(data)), relayed)

    async def open_stream(
        self, request: ChatRequest, ctx: RequestContext, headers: Mapping[str, str]
    ) -> ClosingStream:
        async with attempt(self._extensions, ctx, self._request_seconds):
            return await self._open_stream(request, ctx, headers)

    async def _open_stream(
        self, request: ChatRequest, ctx: RequestContext, headers: Mapping[str, str]
    ) -> ClosingStream:
        route = self._router.resolve(request.model)
        request = await self._prepare(request, ctx)
        stack = AsyncExitStack()
        started = time.perf_counter()
        try:
            # Retried only here, before anything reached the client.
            chunks = await with_retries(
                lambda: stack.enter_async_context(route.upstream.stream(request, headers)),
                self._retry,
            )
        except BaseException as exc:
            if isinstance(exc, UpstreamError):
                self._metrics.upstream_error(exc, route.label)
            await stack.aclose()
            raise
        source = _until_done(
            chunks, self._metrics, started, self._stream_seconds, self._max_stream_bytes
        )
        for transformer in self._extensions.transformers:
            source = transformer.transform(source, ctx)
        return ClosingStream(self._relay(source, route.label, started), stack.aclose)

    async def _relay(
        self, source: AsyncIterator[StreamChunk], label: str, started: float
    ) -> AsyncIterator[bytes]:
        first = True
        self._metrics.streams_in_flight.inc()
        try:
            async for chunk in source:
                if first:
                    self._metrics.observe_stage("upstream_ttft", time.perf_counter() - started)
                    first = False
                yield self._scrub.raw(chunk.raw)
            yield DONE
        except ProxyError as exc:
            if isinstance(exc, UpstreamError):
                self._metrics.upstream_error(exc, label, mid_stream=True)
            logger.warning("stream ended by upstream error: %s", self._scrub.text(exc.message))
            yield error_event(error_body(exc, self._secrets)[1])
            yield DONE
        except Exception as exc:
            logger.error("stream failed", exc_info=exc)
            yield error_event(error_body(exc, self._secrets)[1])
            yield DONE
        finally:
            self._metrics.streams_in_flight.dec()
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()


async def _until_done(
    chunks: AsyncIterator[StreamChunk],
    metrics: Metrics,
    started: float,
    seconds: float,
    max_bytes: int,
) -> AsyncIterator[StreamChunk]:
    """Upstream chunks up to ``[DONE]``, each checked to be JSON; a stream cut short, an error
    event, a stream still open ``seconds`` after it started, or one past ``max_bytes`` raises.
    The deadline and the size are raised here, below the stream transformers (both modes),
    so verification records why the answer stopped."""
    async for chunk in BoundedStream(chunks, seconds, max_bytes, raw_size):
        if chunk.is_done:
            metrics.observe_stage("upstream_total", time.perf_counter() - started)
            return
        data = chunk.data  # parsed now, so a malformed event fails here, not downstream
        if data is not None and "error" in data and not data.get("choices"):
            # An upstream's error event ends the stream as ours does: scrubbed, then [DONE].
            raise UpstreamStreamError.from_event(data["error"])
        yield chunk
    raise UpstreamProtocolError("upstream stream ended before [DONE]")
