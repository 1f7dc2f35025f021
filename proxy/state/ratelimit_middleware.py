"""``RateLimitMiddleware``: plain ASGI, per-key request and token budgets on the model routes.

It sits inside the auth middleware (it reads ``scope["state"]["principal"]``) and refuses with
429 in OpenAI's envelope (``type`` ``requests`` or ``tokens``, ``code`` ``rate_limit_exceeded``)
and a ``Retry-After`` header. The budget is the tenant's (``rate_limits.tenants``) or the
default; it is counted per proxy key, or per tenant without keys.

Token use is read from the response as it passes: ``usage.total_tokens`` of a completion or of
the last stream chunk (``stream_options.include_usage``); a stream without usage is estimated
at four characters per token of request body and streamed content. Nothing is read unless the
budget has a token limit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from proxy.errors import ProxyError, to_openai_error
from proxy.metrics import Metrics
from proxy.settings.state import RateBudget, RateLimitSettings
from proxy.state.ratelimit import Admission, RateLimiter

# Every model route (chat, verify, and the OpenAI routes passed through) is limited; the
# listings are not.
LIMITED_PREFIX = "/v1/"
UNLIMITED_PATHS: tuple[str, ...] = ("/v1/models", "/v1/policies")
CHARS_PER_TOKEN = 4
MAX_JSON_BYTES = 8 * 1024 * 1024  # completions larger than this are estimated


class RateLimited(ProxyError):
    status = 429
    code = "rate_limit_exceeded"

    def __init__(self, decision: Admission, limits: RateBudget) -> None:
        kind = decision.limit or "requests"
        budget = limits.requests if kind == "requests" else limits.tokens
        super().__init__(
            f"Rate limit reached on {kind} per {limits.window_seconds:g}s: limit {budget}. "
            f"Please try again in {decision.retry_after_header}s."
        )
        self.type = kind


class RateLimitMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        limiter: RateLimiter,
        settings: RateLimitSettings,
        metrics: Metrics,
        unlimited: Iterable[str] = UNLIMITED_PATHS,
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.settings = settings
        self.metrics = metrics
        self.unlimited = tuple(unlimited)

    def _limited(self, path: str) -> bool:
        if not path.startswith(LIMITED_PREFIX):
            return False
        return not any(path == p or path.startswith(p + "/") for p in self.unlimited)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._limited(scope["path"]):
            await self.app(scope, receive, send)
            return
        principal = scope.get("state", {}).get("principal")
        tenant = getattr(principal, "tenant", None)
        limits = self.settings.for_tenant(tenant)
        if limits.unlimited:
            await self.app(scope, receive, send)
            return
        key = getattr(principal, "key_id", None) or f"tenant:{tenant}"
        decision = await self.limiter.acquire(key, limits)
        if not decision.allowed:
            label = self.metrics.tenant_label(tenant)
            self.metrics.rate_limited.labels(label, decision.limit or "requests").inc()
            response = to_openai_error(RateLimited(decision, limits))
            response.headers["retry-after"] = decision.retry_after_header
            await response(scope, receive, send)
            return
        if limits.tokens is None:
            await self.app(scope, receive, send)
            return
        # An upload's bytes are no tokens: only a JSON body feeds the estimate.
        meter = _TokenMeter(count_request=_is_json(scope))

        async def spend() -> None:
            await self.limiter.add_tokens(key, meter.tokens(), limits)

        try:
            await self.app(scope, meter.wrap_receive(receive), meter.wrap_send(send, spend))
        finally:
            if not meter.spent:  # the response was cut short (client gone, error)
                await spend()


class _TokenMeter:
    """Counts request body bytes and reads usage (or content length) from the response."""

    __slots__ = ("_body", "_chars", "_count_request", "_request_bytes", "_sse", "_usage", "spent")

    def __init__(self, count_request: bool = True) -> None:
        self._count_request = count_request
        self.spent = False
        self._request_bytes = 0
        self._chars = 0
        self._usage: int | None = None
        self._sse = False
        self._body = bytearray()  # SSE: the unfinished last line; JSON: the whole body

    def wrap_receive(self, receive: Receive) -> Receive:
        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request" and self._count_request:
                self._request_bytes += len(message.get("body", b""))
            return message

        return counted

    def wrap_send(self, send: Send, spend: Callable[[], Awaitable[None]]) -> Send:
        """Read the response as it passes; spend the tokens before the last body message, so
        the client's next request already sees them."""

        async def read(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                self._sse = headers.get(b"content-type", b"").startswith(b"text/event-stream")
            elif message["type"] == "http.response.body":
                self._feed(message.get("body", b""))
                if not message.get("more_body", False) and not self.spent:
                    self.spent = True
                    await spend()
            await send(message)

        return read

    def _feed(self, body: bytes) -> None:
        if not self._sse:
            if len(self._body) < MAX_JSON_BYTES:
                self._body += body
            return
        self._body += body
        *lines, tail = bytes(self._body).split(b"\n")
        self._body = bytearray(tail)
        for line in lines:
            if line.startswith(b"data:"):
                self._event(line[5:])

    def _event(self, raw: bytes) -> None:
        try:
            event = json.loads(raw)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        usage = event.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("total_tokens"), int):
            self._usage = usage["total_tokens"]
            return
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or choice.get("message") or {}
            content = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(content, str):
                self._chars += len(content)

    def tokens(self) -> int:
        if not self._sse and self._body:
            self._event(bytes(self._body))
        if self._usage is not None:
            return self._usage
        return math.ceil((self._request_bytes + self._chars) / CHARS_PER_TOKEN)


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            return bytes(value).startswith(b"application/json")
    return True  # no body type: nothing to count either way
