"""The offline demo's upstream: an httpx transport that answers chat completions with recorded
text, in OpenAI's wire format, streamed word by word or whole.

It is handed to ``create_app(settings, transport=...)``, so the demo needs no second server and
no network: every upstream request the proxy sends lands here. Only ``POST .../chat/completions``
is answered (the demo's proxy refuses other models and serves ``/v1/models`` itself); the full
upstream emulator the tests use lives in ``proxy.testing`` and is not shipped.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

Reply = Callable[[Mapping[str, Any]], str]
_WORD = re.compile(r"\S+\s*|\s+")  # each word with its trailing space: one stream chunk each


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answers each chat completion with ``reply(request_body)``; ``drip_s`` between stream
    chunks lets a page visibly stream."""

    def __init__(self, reply: Reply, *, drip_s: float = 0.0) -> None:
        self._reply = reply
        self._drip_s = drip_s

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            error = {"message": "not found", "type": "invalid_request_error", "code": None}
            return httpx.Response(404, json={"error": error})
        body = json.loads(await request.aread())
        answer = _Answer(str(body.get("model", "")), self._reply(body))
        if not body.get("stream"):
            return httpx.Response(200, json=answer.completion())
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=self._events(answer, usage),
        )

    async def _events(self, answer: _Answer, include_usage: bool) -> AsyncIterator[bytes]:
        for index, chunk in enumerate(answer.chunks(include_usage)):
            if index and self._drip_s:
                await asyncio.sleep(self._drip_s)
            yield b"data: " + json.dumps(chunk).encode() + b"\n\n"
        yield b"data: [DONE]\n\n"


@dataclass(frozen=True, slots=True)
class _Answer:
    model: str
    text: str
    id: str = field(default_factory=lambda: f"chatcmpl-replay-{uuid.uuid4().hex[:12]}")
    created: int = field(default_factory=lambda: int(time.time()))

    def _usage(self) -> dict[str, int]:
        words = len(self.text.split())
        return {"prompt_tokens": 0, "completion_tokens": words, "total_tokens": words}

    def completion(self) -> dict[str, Any]:
        message = {"role": "assistant", "content": self.text}
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": self._usage(),
        }

    def _chunk(self, delta: dict[str, str], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [choice],
        }

    def chunks(self, include_usage: bool) -> list[dict[str, Any]]:
        out = [self._chunk({"role": "assistant", "content": ""})]
        out += [self._chunk({"content": word}) for word in _WORD.findall(self.text)]
        out.append(self._chunk({}, finish_reason="stop"))
        if include_usage:
            final = self._chunk({}) | {"choices": [], "usage": self._usage()}
            out.append(final)
        return out
