"""Extension points of the chat service: where evidence, verification and policies plug in.

Three small protocols, each a chain that is empty by default (an empty chain is the no-op, and
with all three empty the proxy forwards bytes untouched):

1. :class:`RequestPreparer` -- runs before the upstream call. It may return a new
   :class:`~proxy.protocol.ChatRequest` (e.g. ``request.with_body(messages=...)`` to inject
   evidence) and may attach anything to ``ctx.attachments`` for the later steps (the evidence
   it retrieved). Raising a :class:`~proxy.errors.ProxyError` refuses the request.
2. :class:`StreamTransformer` -- wraps the upstream's chunk stream: an async generator that
   reads ``chunks`` and yields what the client should get. It sees every content chunk
   (``chunk.data``), may yield extra chunks (``StreamChunk.from_data({... "choices": [{"index":
   0, "delta": {}}], "verification": {...}})``), may hold chunks back (gate mode), and may stop
   early by returning: the service then closes the upstream stream, which cancels the upstream
   request. ``[DONE]`` is never in ``chunks``; the service appends it after the last chunk, so
   a response-level chunk yielded after ``chunks`` is exhausted lands right before ``[DONE]``.
   Transformers chain in order: the first wraps the upstream, the next wraps the first.
3. :class:`ResponseFinaliser` -- gets the parsed non-streaming completion and returns the one
   to send (e.g. with a top-level ``verification`` object added).

Each receives a :class:`RequestContext`: the typed per-request options, request id, the model
the client asked for, and the ``attachments`` dict shared by the steps of one request.
:class:`Extensions` holds the three chains; pass one to ``create_app(..., extensions=...)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from proxy.protocol import ChatRequest, RequestOptions
from proxy.streaming import StreamChunk


@dataclass(frozen=True, slots=True)
class RequestContext:
    request_id: str
    model: str
    stream: bool
    tenant: str | None = None  # from the proxy key; None in keyless mode
    # The policies the caller's key is bound to (its allow-list); the first is the key's own
    # policy, used when the request names none. Empty: the key is not bound.
    key_policies: tuple[str, ...] = ()
    options: RequestOptions = field(default_factory=RequestOptions)
    # Shared scratch space for one request's extension steps (e.g. "evidence" -> Evidence).
    attachments: dict[str, Any] = field(default_factory=dict)


class RequestPreparer(Protocol):
    async def prepare(self, request: ChatRequest, ctx: RequestContext) -> ChatRequest: ...


class StreamTransformer(Protocol):
    def transform(
        self, chunks: AsyncIterator[StreamChunk], ctx: RequestContext
    ) -> AsyncIterator[StreamChunk]: ...


class ResponseFinaliser(Protocol):
    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Extensions:
    preparers: tuple[RequestPreparer, ...] = ()
    transformers: tuple[StreamTransformer, ...] = ()
    finalisers: tuple[ResponseFinaliser, ...] = ()


NO_EXTENSIONS = Extensions()
