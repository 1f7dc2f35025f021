"""Every OpenAI route the proxy does not verify, relayed to the upstream as it is.

``PassthroughService.forward`` sends one :class:`Forward` to the upstream the request's model
picks (JSON bodies) or to the default upstream (uploads, listings, ``GET`` by id), with the same
key mapping, timeouts and retries as chat, and returns the upstream's answer. Nothing is
verified; ``veriproxy_unverified_requests_total{reason="passthrough"}`` counts each request by
route.

* Bodies: JSON bodies are read (bounded by ``max_body_bytes``) so the model can route them and
  be renamed; any other body (multipart uploads) streams through chunk by chunk, bounded by
  ``limits.max_upload_bytes``, never held in memory. Only buffered bodies are retried.
* Answers: the upstream's status, content type and body: read whole and sent at once when
  small (up to ``BUFFERED_BYTES`` with a ``Content-Length``), else streamed (downloads, SSE).
  Configured upstream keys are scrubbed from the body, across chunk boundaries, and from
  relayed headers. An error status becomes :class:`~proxy.errors.UpstreamHTTPError` (after
  retries), so the client gets the upstream's own status, type, code and message, sanitised
  like chat's.
* Tenants: upstream resources that outlive a request (files, batches, unknown routes) belong
  to whoever owns the upstream key. With proxy keys on and a configured upstream key every
  tenant would share them, so those routes are refused (403) there; see ``docs/api.md``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.responses import Response

from proxy.auth import PermissionDenied
from proxy.errors import (
    InvalidRequest,
    PayloadTooLarge,
    ProxyError,
    UpstreamError,
    UpstreamHTTPError,
    map_transport_errors,
)
from proxy.limits import deadline
from proxy.metrics import Metrics
from proxy.retry import RetryPolicy, with_retries
from proxy.scrub import Scrubber
from proxy.streaming import ClosingResponse
from proxy.upstream import OpenAICompatUpstream, Route, UpstreamRouter, relayed_headers

logger = logging.getLogger("veriproxy.passthrough")

PASSTHROUGH = "passthrough"
# Response headers relayed besides ``relayed_headers`` (downloads keep their name and type).
BODY_HEADERS = ("content-type", "content-disposition")
# Answers up to this size with a Content-Length are read whole and sent at once; larger ones
# (downloads) and streams are relayed chunk by chunk.
BUFFERED_BYTES = 1024 * 1024
# Routes whose calls leave nothing behind upstream: safe to share one upstream key.
STATELESS_PREFIXES = (
    "/embeddings",
    "/moderations",
    "/audio/",
    "/images/",
    "/completions",
    "/models",
)


@dataclass(frozen=True, slots=True)
class Forward:
    """One request to relay. ``path`` is below ``/v1`` (``/embeddings``); ``headers`` are the
    client headers that may travel; ``model`` is the JSON body's model, if any."""

    method: str
    path: str
    query: bytes
    headers: Mapping[str, str]
    body: bytes | AsyncIterable[bytes]
    model: str | None
    route_label: str
    shared_tenants: bool  # proxy keys are on: several tenants may share an upstream key


class PassthroughService:
    def __init__(
        self,
        router: UpstreamRouter,
        metrics: Metrics,
        secrets: tuple[str, ...],
        retry: RetryPolicy,
        request_seconds: float,
    ) -> None:
        self._router = router
        self._metrics = metrics
        self._scrubber = Scrubber(secrets)
        self._retry = retry
        self._request_seconds = request_seconds

    def upstream_for(self, model: str | None, path: str) -> tuple[OpenAICompatUpstream, Route]:
        route = self._router.resolve(model) if model else self._router.unnamed()
        if not isinstance(route.upstream, OpenAICompatUpstream):
            raise InvalidRequest(
                f"/v1{path} is not available for this model: its upstream is a litellm provider, "
                "which only chat completions reach",
                param="model" if model else None,
            )
        return route.upstream, route

    async def forward(self, fwd: Forward) -> Response:
        upstream, route = self.upstream_for(fwd.model, fwd.path)
        if fwd.shared_tenants and upstream.has_key and not fwd.path.startswith(STATELESS_PREFIXES):
            raise PermissionDenied(
                f"/v1{fwd.path} keeps upstream state that every tenant of this proxy would share "
                "under its upstream key, so it is not passed through"
            )
        self._metrics.unverified.labels(fwd.route_label, PASSTHROUGH).inc()
        scrub = self._scrubber
        response = await self.open(
            upstream, route, fwd.method, fwd.path, fwd.headers, fwd.body, fwd.query
        )
        headers = [*relayed_headers(response.headers)]
        headers += [(n, response.headers[n]) for n in BODY_HEADERS if n in response.headers]
        out_headers = dict(scrub.headers(headers))
        if _small(response):
            # A small, whole answer (embeddings, a file's metadata): read it and answer at
            # once, as chat does, without a streamed body's machinery.
            try:
                with map_transport_errors():
                    body = await response.aread()
            finally:
                await response.aclose()
            return Response(scrub.raw(body), response.status_code, out_headers)

        def failed(exc: UpstreamError) -> None:
            self._metrics.upstream_error(exc, route.label, mid_stream=True)

        return ClosingResponse(_Relay(response, scrub, failed), response.status_code, out_headers)

    async def open(
        self,
        upstream: OpenAICompatUpstream,
        route: Route,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: bytes | AsyncIterable[bytes],
        query: bytes = b"",
    ) -> httpx.Response:
        """Send, within ``request_seconds``, retried (buffered bodies only); an error status
        raises :class:`UpstreamHTTPError` (counted). The response is returned unread."""
        scrub = self._scrubber

        async def call() -> httpx.Response:
            response = await upstream.send(method, path, headers, body, query)
            if response.status_code < 400:
                return response
            try:
                with map_transport_errors():
                    content = await response.aread()
            finally:
                await response.aclose()
            relay = scrub.headers(relayed_headers(response.headers))
            raise UpstreamHTTPError.from_body(response.status_code, content, relay)

        retry = self._retry if isinstance(body, bytes) else RetryPolicy(max_attempts=1)
        try:
            async with deadline("request", self._request_seconds):
                return await with_retries(call, retry)
        except UpstreamError as exc:
            self._metrics.upstream_error(exc, route.label)
            raise

    async def upstream_models(self) -> list[dict[str, Any]]:
        """The default upstream's own model list (``GET /models``); empty when it has none,
        fails, or unknown model names would not reach it."""
        if not self._router.forwards_unknown:
            return []
        try:
            upstream, _ = self.upstream_for(None, "/models")
            async with deadline("request", self._request_seconds):
                response = await upstream.send("GET", "/models", {}, b"")
                try:
                    with map_transport_errors():
                        body = await response.aread()
                finally:
                    await response.aclose()
        except ProxyError as exc:
            logger.warning("upstream model list unavailable: %s", self._scrubber.text(exc.message))
            return []
        try:
            data = json.loads(body).get("data") if response.status_code == 200 else None
        except (ValueError, AttributeError):
            data = None
        if not isinstance(data, list):
            logger.warning("upstream model list unavailable (HTTP %d)", response.status_code)
            return []
        return [m for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]


class _Relay:
    """The upstream body with configured keys scrubbed, also where a chunk boundary splits
    one; closing it closes the upstream response."""

    def __init__(
        self,
        response: httpx.Response,
        scrubber: Scrubber,
        on_error: Callable[[UpstreamError], None],
    ) -> None:
        self._response = response
        self._scrubber = scrubber
        self._secrets = tuple(s.encode() for s in scrubber.secrets)
        self._on_error = on_error

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._body()

    async def _body(self) -> AsyncIterator[bytes]:
        held = b""
        try:
            with map_transport_errors():
                async for chunk in self._response.aiter_bytes():
                    data = self._scrubber.raw(held + chunk)
                    keep = _partial_secret(data, self._secrets)
                    held = data[len(data) - keep :] if keep else b""
                    if len(data) > keep:
                        yield data[: len(data) - keep]
        except UpstreamError as exc:
            # Headers are out: all that is left is to end the body short; the client sees a
            # truncated response, and the metric says why.
            self._on_error(exc)
            logger.warning("passthrough body ended by upstream error: %s", exc.message)
            return
        if held:
            yield held

    async def aclose(self) -> None:
        await self._response.aclose()


def _small(response: httpx.Response) -> bool:
    length = response.headers.get("content-length", "")
    streamed = response.headers.get("content-type", "").startswith("text/event-stream")
    return not streamed and length.isdigit() and int(length) <= BUFFERED_BYTES


def _partial_secret(data: bytes, secrets: tuple[bytes, ...]) -> int:
    """How many trailing bytes could be the start of a key the next chunk completes."""
    longest = 0
    for secret in secrets:
        for n in range(min(len(secret) - 1, len(data)), longest, -1):
            if data.endswith(secret[:n]):
                longest = n
                break
    return longest


async def bounded(chunks: AsyncIterable[bytes], limit: int) -> AsyncIterator[bytes]:
    """Relay an upload's chunks, refusing (413) once more than ``limit`` bytes went by."""
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"upload exceeds the limit of {limit} bytes")
        yield chunk
