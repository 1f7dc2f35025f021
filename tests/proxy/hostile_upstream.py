"""A hostile OpenAI-compatible upstream for end-to-end tests: it answers every request with the
status, headers and raw body bytes the test scripted, byte for byte (no JSON or SSE framing of
its own), so a test can send what a broken or malicious provider would."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.types import Receive, Scope, Send

from proxy.testing.server_thread import ServerThread

Body = Callable[[], AsyncIterator[bytes]]


def chunk(content: str | None = None, *, finish: str | None = None) -> bytes:
    """One OpenAI stream event (``data: {...}``) carrying ``content``."""
    delta = {} if content is None else {"content": content}
    data = {
        "id": "chatcmpl-hostile",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def completion(content: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-hostile",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
        }
    ).encode()


def sse(*events: bytes) -> Body:
    async def body() -> AsyncIterator[bytes]:
        for event in events:
            yield event

    return body


@dataclass
class Script:
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: Body = field(default_factory=lambda: sse())
    content_type: str = "text/event-stream"


class HostileUpstream:
    """The ASGI app; set :attr:`script` before each request."""

    def __init__(self) -> None:
        self.script = Script()

    def answer(
        self,
        body: Body | bytes,
        *,
        status: int = 200,
        headers: Iterable[tuple[str, str]] = (),
        content_type: str | None = None,
    ) -> None:
        if isinstance(body, bytes):
            raw = body
            body = sse(raw)
            content_type = content_type or "application/json"
        self.script = Script(status, list(headers), body, content_type or "text/event-stream")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        script = self.script
        headers = [(b"content-type", script.content_type.encode())]
        headers += [(k.encode(), v.encode()) for k, v in script.headers]
        await send({"type": "http.response.start", "status": script.status, "headers": headers})
        async for data in script.body():
            await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b""})


@contextmanager
def hostile_upstream() -> Iterator[tuple[HostileUpstream, str]]:
    """The upstream and its OpenAI ``base_url``."""
    app = HostileUpstream()
    with ServerThread(app) as server:
        yield app, f"{server.url}/v1"


def proxy_config(base_url: str, key: str, **extra: Any) -> dict[str, Any]:
    """A passthrough proxy in front of ``base_url`` that sends ``key`` upstream."""
    return {
        "default_upstream": {"base_url": base_url, "api_key": key},
        "retrieval": {"enabled": False},
        "verification": {"enabled": False},
        "retry": {"max_attempts": 1},
        **extra,
    }
