"""OpenAI-compatible upstreams over one pooled httpx client (HTTP/1.1 keep-alive, optional h2).

The request body goes out as the client's exact bytes when nothing changed it; the response
(and every stream event) comes back as the upstream's exact bytes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import httpx

from proxy.config import Settings, UpstreamSettings
from proxy.errors import UpstreamHTTPError, map_transport_errors
from proxy.protocol import ChatRequest
from proxy.streaming import StreamChunk, frame_sse
from proxy.upstream._base import Completion, relayed_headers


def build_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The shared client: explicit timeouts and pool limits from settings."""
    t, p = settings.timeouts, settings.pool
    return httpx.AsyncClient(
        timeout=httpx.Timeout(connect=t.connect, read=t.read, write=t.write, pool=t.pool),
        limits=httpx.Limits(
            max_connections=p.max_connections,
            max_keepalive_connections=p.max_keepalive_connections,
            keepalive_expiry=p.keepalive_expiry,
        ),
        http2=settings.http2,
        transport=transport,
        follow_redirects=False,
        trust_env=False,
    )


class OpenAICompatUpstream:
    def __init__(self, client: httpx.AsyncClient, settings: UpstreamSettings) -> None:
        assert settings.base_url is not None
        self._client = client
        self._settings = settings
        self._url = f"{settings.base_url}/chat/completions"

    def _outgoing(self, request: ChatRequest, headers: Mapping[str, str]) -> tuple[bytes, dict]:
        if self._settings.model is not None and request.model != self._settings.model:
            request = request.with_body(model=self._settings.model)
        content = request.raw if request.raw is not None else json.dumps(request.body).encode()
        out = {k: v for k, v in headers.items() if k != "authorization"}
        out["content-type"] = "application/json"
        if self._settings.api_key is not None:
            out["authorization"] = f"Bearer {self._settings.api_key.get()}"
        elif "authorization" in headers:
            out["authorization"] = headers["authorization"]
        return content, out

    async def complete(self, request: ChatRequest, headers: Mapping[str, str]) -> Completion:
        content, out = self._outgoing(request, headers)
        with map_transport_errors():
            response = await self._client.post(self._url, content=content, headers=out)
        relay = relayed_headers(response.headers)
        if response.status_code >= 400:
            raise UpstreamHTTPError.from_body(response.status_code, response.content, relay)
        return Completion(raw=response.content, headers=relay)

    @asynccontextmanager
    async def stream(
        self, request: ChatRequest, headers: Mapping[str, str]
    ) -> AsyncIterator[AsyncIterator[StreamChunk]]:
        content, out = self._outgoing(request, headers)
        with map_transport_errors():
            async with self._client.stream(
                "POST", self._url, content=content, headers=out
            ) as response:
                if response.status_code >= 400:
                    body = await response.aread()
                    raise UpstreamHTTPError.from_body(
                        response.status_code, body, relayed_headers(response.headers)
                    )
                yield _events(response)

    async def aclose(self) -> None:
        """The shared client belongs to the app; nothing of our own to close."""


async def _events(response: httpx.Response) -> AsyncIterator[StreamChunk]:
    with map_transport_errors():
        async for chunk in frame_sse(response.aiter_bytes()):
            yield chunk
