"""OpenAI-compatible upstreams over one pooled httpx transport (HTTP/1.1 keep-alive, or h2).

The request body goes out as the client's exact bytes when nothing changed it; the response
(and every stream event) comes back as the upstream's exact bytes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from contextlib import asynccontextmanager

import httpx

from proxy.config import Settings, Timeouts, UpstreamSettings
from proxy.errors import UpstreamHTTPError, map_transport_errors
from proxy.protocol import ChatRequest
from proxy.streaming import DEFAULT_MAX_EVENT_BYTES, StreamChunk, frame_sse
from proxy.upstream._base import Completion, relayed_headers
from proxy.upstream._network import CoalescingTransport

USER_AGENT = "veriproxy"


def build_transport(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncBaseTransport:
    """The one pooled transport every OpenAI-compatible upstream shares.

    HTTP/1.1 goes through :class:`CoalescingTransport` (see ``_network``), HTTP/2 through
    httpx's own; a ``transport`` passed in (tests) is used as is. Use it as an async context
    manager: leaving it closes the pool.
    """
    p = settings.pool
    limits = httpx.Limits(
        max_connections=p.max_connections,
        max_keepalive_connections=p.max_keepalive_connections,
        keepalive_expiry=p.keepalive_expiry,
    )
    if transport is not None:
        return transport
    if settings.http2:
        return httpx.AsyncHTTPTransport(limits=limits, http2=True, trust_env=False)
    return CoalescingTransport(limits)


class OpenAICompatUpstream:
    """Sends straight to the transport, skipping ``httpx.AsyncClient``: no URL merging per
    request, no redirects, and no cookie jar -- a shared jar would replay one upstream
    ``Set-Cookie`` on every client's requests."""

    def __init__(
        self,
        transport: httpx.AsyncBaseTransport,
        settings: UpstreamSettings,
        timeouts: Timeouts,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        assert settings.base_url is not None
        self._max_event_bytes = max_event_bytes
        self._transport = transport
        self._settings = settings
        self._url = httpx.URL(f"{settings.base_url}/chat/completions")
        self._timeout = {
            "connect": timeouts.connect,
            "read": timeouts.read,
            "write": timeouts.write,
            "pool": timeouts.pool,
        }

    @property
    def has_key(self) -> bool:
        """Whether calls go out under a configured key (shared by every proxy client)."""
        return self._settings.api_key is not None

    @property
    def model_override(self) -> str | None:
        """The model name sent upstream in place of the client's, if configured."""
        return self._settings.model

    def _headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """Client headers with the upstream's key mapped in (or the client's own kept)."""
        out = {k: v for k, v in headers.items() if k != "authorization"}
        out["user-agent"] = USER_AGENT
        if self._settings.api_key is not None:
            out["authorization"] = f"Bearer {self._settings.api_key.get()}"
        elif "authorization" in headers:
            out["authorization"] = headers["authorization"]
        return out

    def _outgoing(
        self, request: ChatRequest, headers: Mapping[str, str]
    ) -> tuple[bytes, dict[str, str]]:
        if self._settings.model is not None and request.model != self._settings.model:
            request = request.with_body(model=self._settings.model)
        content = request.raw if request.raw is not None else json.dumps(request.body).encode()
        out = self._headers(headers)
        out["content-type"] = "application/json"
        return content, out

    async def _send(self, request: ChatRequest, headers: Mapping[str, str]) -> httpx.Response:
        content, out = self._outgoing(request, headers)
        return await self._request("POST", self._url, out, content)

    async def send(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        content: bytes | AsyncIterable[bytes],
        query: bytes = b"",
    ) -> httpx.Response:
        """Any other route below the base URL (``path`` like ``/embeddings``), the key mapped
        as for chat; the response is returned unread (the caller closes it)."""
        url = httpx.URL(f"{self._settings.base_url}{path}", query=query)
        return await self._request(method, url, self._headers(headers), content)

    async def _request(
        self,
        method: str,
        url: httpx.URL,
        headers: dict[str, str],
        content: bytes | AsyncIterable[bytes],
    ) -> httpx.Response:
        outgoing = httpx.Request(
            method, url, headers=headers, content=content, extensions={"timeout": self._timeout}
        )
        with map_transport_errors():
            return await self._transport.handle_async_request(outgoing)

    async def complete(self, request: ChatRequest, headers: Mapping[str, str]) -> Completion:
        response = await self._send(request, headers)
        try:
            with map_transport_errors():
                body = await response.aread()
        finally:
            await response.aclose()
        relay = relayed_headers(response.headers)
        if response.status_code >= 400:
            raise UpstreamHTTPError.from_body(response.status_code, body, relay)
        return Completion(raw=body, headers=relay)

    @asynccontextmanager
    async def stream(
        self, request: ChatRequest, headers: Mapping[str, str]
    ) -> AsyncIterator[AsyncIterator[StreamChunk]]:
        response = await self._send(request, headers)
        try:
            if response.status_code >= 400:
                with map_transport_errors():
                    body = await response.aread()
                raise UpstreamHTTPError.from_body(
                    response.status_code, body, relayed_headers(response.headers)
                )
            yield _events(response, self._max_event_bytes)
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        """The shared transport belongs to the app; nothing of our own to close."""


async def _events(response: httpx.Response, max_event_bytes: int) -> AsyncIterator[StreamChunk]:
    with map_transport_errors():
        async for chunk in frame_sse(response.aiter_bytes(), max_event_bytes):
            yield chunk
