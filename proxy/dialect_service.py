"""Legacy completions and the Responses API, verified through a chat view (see
:mod:`proxy.dialects`).

``DialectService.complete`` and ``open_stream`` run the same extension chains as chat
(:mod:`proxy.extensions`): the preparers see the request's chat view and the evidence messages
they add are put back in the dialect's own place; the upstream is called on the dialect's own
route (no translation: ``/completions``, ``/responses``); the finalisers see the answer as a
chat completion, the transformers its stream as chat chunks, and the dialect writes the
verified text, finish reason and report back in its own format: from the typed events the
chunks carry (:class:`~proxy.verification.chat_stream.EventChunk`) and the finaliser's typed
report (``RequestState.report``); no report or annotation is read back out of a chat payload.

Stream mapping: each upstream text delta becomes a content chunk; every other event rides
through the transformers untouched (a :class:`ViewChunk` with an empty delta, so both stream
modes pass it at once); the dialect's closing events (finish, ``*.done``,
``response.completed``) are held and rebuilt at the end from the text the client was actually
sent, so a gate-mode redaction or block never leaves the original words in a final event.

When verification cannot apply (:class:`~proxy.dialects.UnverifiedRequest`), or the policy says so,
the answer passes through with ``verification: {"status": "unverified", "reason": ...}`` and
``veriproxy_unverified_requests_total{reason="not_verifiable"}``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from policies import OnVerifierError
from proxy.chat_service import attempt
from proxy.dialects import (
    REPORT_EVENT,
    Dialect,
    ResponsesDialect,
    UnverifiedRequest,
)
from proxy.errors import (
    InvalidRequest,
    ProxyError,
    UpstreamError,
    UpstreamProtocolError,
    error_body,
    map_transport_errors,
)
from proxy.extensions import Extensions, RequestContext
from proxy.limits import BoundedStream, Limits, raw_size
from proxy.metrics import Metrics
from proxy.passthrough import PassthroughService
from proxy.protocol import ChatRequest
from proxy.scrub import Scrubber
from proxy.streaming import DONE, StreamChunk, error_event, frame_sse, json_bytes
from proxy.upstream import LiteLLMUpstream, Route, UpstreamRouter
from proxy.verification.chat_stream import EventChunk, report_payload, sentence_payload
from proxy.verification.chunks import content_of
from proxy.verification.events import (
    BlockMessage,
    Content,
    Finish,
    Forward,
    Report,
    Sentence,
    StreamEvent,
)
from proxy.verification.shapes import CONTENT_FILTER, UNREAD_KEY
from verifiers import to_json

logger = logging.getLogger("veriproxy.dialects")

T = TypeVar("T")
NOT_VERIFIABLE = "not_verifiable"
STATUS_HEADER = "X-Veriproxy-Status"


@dataclass(frozen=True)
class ViewChunk(StreamChunk):
    """A chat chunk standing for one upstream event that the client gets as it was."""

    source: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class DialectCall:
    dialect: Dialect
    body: dict[str, Any]
    ctx: RequestContext
    headers: Mapping[str, str]
    route_label: str


@dataclass(frozen=True, slots=True)
class DialectAnswer:
    body: bytes
    headers: dict[str, str]


class UnverifiableRequest(InvalidRequest):
    code = "unverifiable_request"


def unverified(reason: str) -> dict[str, str]:
    return {"status": "unverified", "reason": reason}


class DialectService:
    def __init__(
        self,
        router: UpstreamRouter,
        passthrough: PassthroughService,
        extensions: Extensions,
        metrics: Metrics,
        secrets: tuple[str, ...],
        limits: Limits,
    ) -> None:
        self._router = router
        self._passthrough = passthrough
        self._request_seconds = limits.request_seconds
        self._extensions = extensions
        self._metrics = metrics
        self._scrubber = Scrubber(secrets)
        self._max_event_bytes = limits.max_event_bytes
        self._stream_seconds = limits.stream_seconds
        self._max_stream_bytes = limits.max_stream_bytes

    async def _prepare(self, call: DialectCall) -> tuple[dict[str, Any], str | None]:
        """The body to send, and why it is not verified (None: it is). A request that cannot be
        verified still gets its policy: one that withholds what it cannot verify
        (``on_verifier_error: closed``) refuses it, audited, before the upstream is called."""
        view = call.dialect.messages(call.body)
        unverifiable = view.reason if isinstance(view, UnverifiedRequest) else None
        messages = [] if isinstance(view, UnverifiedRequest) else view
        view_body: dict[str, Any] = {"model": call.ctx.model, "messages": messages}
        if call.dialect.asks_for_json:  # the verifier reads the answer's JSON values
            view_body["response_format"] = {"type": "json_object"}
        request = ChatRequest(body=view_body)
        for preparer in self._extensions.preparers:
            request = await preparer.prepare(request, call.ctx)
        state = call.ctx.state
        policy = None if state.verification_skipped else state.policy
        if policy is not None and unverifiable is None:
            unverifiable = call.dialect.skipped_by(policy)
        elif policy is not None and policy.on_verifier_error is OnVerifierError.CLOSED:
            raise UnverifiableRequest(
                f"this request cannot be verified ({unverifiable}), and policy "
                f"'{policy.name}' withholds what it cannot verify"
            )
        if unverifiable is not None:
            state.policy = None  # nothing downstream verifies it
            call.dialect.verifying = False
            return call.body, unverifiable
        added = [m for m in request.messages if m not in messages]
        return call.dialect.inject(call.body, added), None

    def _route(self, call: DialectCall) -> Route:
        route = self._router.resolve(call.ctx.model)
        if isinstance(route.upstream, LiteLLMUpstream) and not isinstance(
            call.dialect, ResponsesDialect
        ):
            raise InvalidRequest(
                f"/v1{call.dialect.path} is not available for this model: its upstream is a "
                "litellm provider, which chat completions and responses reach",
                param="model",
            )
        return route

    async def _http(self, call: DialectCall, route: Route, body: Mapping[str, Any]) -> Any:
        upstream, _ = self._passthrough.upstream_for(call.ctx.model, call.dialect.path)
        if upstream.model_override is not None:
            body = {**body, "model": upstream.model_override}
        headers = {**call.headers, "content-type": "application/json"}
        content = json.dumps(body).encode()
        return await self._passthrough.open(
            upstream, route, "POST", call.dialect.path, headers, content
        )

    async def _data(self, call: DialectCall, body: Mapping[str, Any]) -> dict[str, Any]:
        """The whole answer, from an OpenAI-compatible upstream or through litellm."""
        route = self._route(call)
        if isinstance(route.upstream, LiteLLMUpstream):
            return await self._litellm(route, route.upstream.responses(body, call.headers))
        response = await self._http(call, route, body)
        try:
            with map_transport_errors():
                raw = await response.aread()
        finally:
            await response.aclose()
        try:
            data = json.loads(raw)
        except ValueError:
            raise UpstreamProtocolError("upstream returned a body that is not JSON") from None
        if not isinstance(data, dict):
            raise UpstreamProtocolError("upstream returned a body that is not a JSON object")
        return data

    async def _events(
        self, call: DialectCall, body: Mapping[str, Any], stack: AsyncExitStack
    ) -> tuple[AsyncIterator[dict[str, Any]], str]:
        """The answer's stream events as JSON objects (closed with ``stack``), within
        ``limits.stream_seconds`` and ``limits.max_stream_bytes``: bounded here, beneath the
        stream transformers, so both stream modes stop and verification records why."""
        route = self._route(call)
        if isinstance(route.upstream, LiteLLMUpstream):
            opened = stack.enter_async_context(route.upstream.stream_responses(body, call.headers))
            events = await self._litellm(route, opened)
            return self._bounded(events, _json_size), route.label
        response = await self._http(call, route, body)
        stack.push_async_callback(response.aclose)
        chunks = frame_sse(response.aiter_bytes(), self._max_event_bytes)
        return _payloads(self._bounded(chunks, raw_size)), route.label

    def _bounded(self, items: AsyncIterator[T], size: Callable[[T], int]) -> BoundedStream[T]:
        return BoundedStream(items, self._stream_seconds, self._max_stream_bytes, size)

    async def _litellm(self, route: Route, call: Awaitable[T]) -> T:
        try:
            return await call
        except UpstreamError as exc:
            self._metrics.upstream_error(exc, route.label)
            raise

    async def complete(self, call: DialectCall) -> DialectAnswer:
        """The answer, within the request deadline (see :func:`proxy.chat_service.attempt`)."""
        async with attempt(self._extensions, call.ctx, self._request_seconds):
            return await self._complete(call)

    async def _complete(self, call: DialectCall) -> DialectAnswer:
        body, skipped = await self._prepare(call)
        data = await self._data(call, body)
        if skipped is not None or not self._extensions.finalisers:
            call.dialect.verifying = False
            text = call.dialect.answer(data)
            out = self._unverified(call, data, text or "", skipped or "verification is off")
            return DialectAnswer(self._encode(out), {STATUS_HEADER: "unverified"})
        # No text, or more than the text: the chat view says so, and the policy decides.
        message = {"role": "assistant", "content": call.dialect.answer(data)}
        view: dict[str, Any] = {
            "id": data.get("id"),
            "object": "chat.completion",
            "model": call.ctx.model,
            "choices": [
                {
                    "index": 0,
                    "message": {**message, UNREAD_KEY: call.dialect.unread(data)},
                    "finish_reason": "stop",
                }
            ],
        }
        for finaliser in self._extensions.finalisers:
            view = await finaliser.finalise(view, call.ctx)
        choice = view["choices"][0]
        content = choice.get("message", {}).get("content")
        refusal = choice.get("message", {}).get("refusal")
        verified = call.ctx.state.report  # the finaliser's, as the client gets it
        report = unverified("verification did not run") if verified is None else to_json(verified)
        finish = choice.get("finish_reason")
        text = content if isinstance(content, str) else ""
        if isinstance(refusal, str):  # a blocked structured answer, declined as OpenAI does
            out = call.dialect.apply(data, text, CONTENT_FILTER, report, refusal=refusal)
        else:
            cited = choice.get("message", {}).get("annotations") or ()
            out = call.dialect.apply(data, text, finish, report, annotations=cited)
        return DialectAnswer(self._encode(out), dict(call.ctx.state.response_headers))

    def _unverified(
        self, call: DialectCall, data: Mapping[str, Any], text: str, reason: str
    ) -> dict[str, Any]:
        self._metrics.unverified.labels(call.route_label, NOT_VERIFIABLE).inc()
        return call.dialect.apply(data, text, None, unverified(reason), whole=True)

    def _encode(self, data: Mapping[str, Any]) -> bytes:
        return self._scrubber.raw(json_bytes(data))

    async def open_stream(self, call: DialectCall) -> AsyncIterator[bytes]:
        """The client's byte stream; upstream errors before it starts raise (an HTTP error)."""
        async with attempt(self._extensions, call.ctx, self._request_seconds):
            return await self._open_stream(call)

    async def _open_stream(self, call: DialectCall) -> AsyncIterator[bytes]:
        body, skipped = await self._prepare(call)
        stack = AsyncExitStack()
        try:
            events, label = await self._events(call, body, stack)
        except BaseException:
            await stack.aclose()
            raise
        return self._relay(call, events, stack, skipped, label)

    async def _relay(
        self,
        call: DialectCall,
        events: AsyncIterator[dict[str, Any]],
        stack: AsyncExitStack,
        skipped: str | None,
        label: str,
    ) -> AsyncIterator[bytes]:
        dialect = call.dialect
        out = _Writer(dialect, self._scrubber)
        responses = isinstance(dialect, ResponsesDialect)
        custom_events = responses and call.ctx.options.verification_events
        source = self._view(dialect, events)
        if skipped is not None or not self._extensions.transformers:
            dialect.verifying = False
            self._metrics.unverified.labels(call.route_label, NOT_VERIFIABLE).inc()
            report: dict[str, Any] | None = unverified(skipped or "verification is off")
        else:
            report = None
            for transformer in self._extensions.transformers:
                source = transformer.transform(source, call.ctx)
        finish: str | None = None
        refusal: str | None = None
        # Whether the client has the stream's opening events: forwarded as the upstream sent
        # them (annotate mode, unverified), or else rendered before the first rendered event.
        opened = False
        try:
            with map_transport_errors():
                async for chunk in source:
                    if isinstance(chunk, ViewChunk):
                        if chunk.source is not None:
                            opened = True
                            yield out.event(chunk.source)
                        if (delta := content_of(chunk.data)) is not None:
                            out.sent += delta
                        continue
                    verified = chunk.event if isinstance(chunk, EventChunk) else None
                    if chunk.data is None or verified is None:
                        continue  # a comment (a chunk verification wrote carries its event)
                    if not opened:
                        opened = True
                        for event in dialect.opening_events():
                            yield out.event(event)
                    if responses and isinstance(verified, BlockMessage):
                        refusal = verified.message  # the item's refusal part, not its text
                        continue
                    match verified:
                        case Sentence(annotation, _, 0) if custom_events or not responses:
                            yield out.event(dialect.annotation_event(sentence_payload(annotation)))
                        case Report(_, shown, citations, 0):
                            report = report_payload(shown)
                            for event in dialect.citation_events([c.chat() for c in citations]):
                                yield out.event(event)
                        case Finish(reason, _, 0):
                            finish = reason or finish
                    if (delta := _text(verified)) is not None:
                        out.sent += delta
                        for event in dialect.content_events(delta):
                            yield out.event(event)
            if not opened:
                for event in dialect.opening_events():
                    yield out.event(event)
            for event in dialect.final_events(out.sent, finish, report, refusal):
                yield out.event(event)
            if report is not None and custom_events:
                yield out.event({"type": REPORT_EVENT, "report": report})
            if not responses:
                yield DONE
        except ProxyError as exc:
            if exc.status >= 500:
                self._metrics.upstream_error(exc, label, mid_stream=True)
            logger.warning("stream ended by error: %s", self._scrubber.text(exc.message))
            yield error_event(error_body(exc, self._scrubber.secrets)[1])
            if not isinstance(dialect, ResponsesDialect):
                yield DONE
        finally:
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()
            await stack.aclose()

    async def _view(
        self, dialect: Dialect, events: AsyncIterator[dict[str, Any]]
    ) -> AsyncIterator[StreamChunk]:
        """Upstream events as chat chunks; the dialect's closing events are held back."""
        finished = announced = False
        async for data in events:
            text = dialect.delta(data)
            # The answer's id travels in the view, so the report is stored under it.
            head = {"id": dialect.answer_id} if dialect.answer_id else {}
            unread = {UNREAD_KEY: reasons} if (reasons := dialect.take_unread()) else {}
            # The role, once the answer's message is announced: gate mode then renders the
            # dialect's opening events at once, as it sends a chat stream's role at once.
            role = {"role": "assistant"} if dialect.answering and not announced else {}
            announced = announced or bool(role)
            if text is not None or unread:
                delta = {**role, "content": text or "", **unread}
                yield _view_chunk({**head, **_choice(delta)}, data)
            elif dialect.is_terminal(data):
                if not finished:
                    finished = True
                    yield _view_chunk({**head, **_choice({}, "stop")}, None)
            else:
                yield _view_chunk({**head, **_choice(role)}, data)
        if dialect.verifying:
            dialect.ended()  # a stream cut short is an upstream failure, never "verified"
        if not finished:
            yield _view_chunk(_choice({}, "stop"), None)


async def _payloads(chunks: AsyncIterator[StreamChunk]) -> AsyncIterator[dict[str, Any]]:
    async for chunk in chunks:
        if not chunk.is_done and chunk.data is not None:
            yield chunk.data


def _json_size(event: Mapping[str, Any]) -> int:
    """A litellm event's size, as the JSON it stands for."""
    return len(json.dumps(event))


def _choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _view_chunk(data: Mapping[str, Any], source: dict[str, Any] | None) -> ViewChunk:
    plain = StreamChunk.from_data(data)
    return ViewChunk(raw=plain.raw, data_text=plain.data_text, source=source)


def _text(event: StreamEvent) -> str | None:
    """The text an event adds to what the client reads (None: none)."""
    match event:
        case Content(text, _, 0) | Forward(_, str(text)) if text:
            return text
        case BlockMessage(message, separator, False):
            return separator + message
    return None


class _Writer:
    """Encodes the client's events: Responses events numbered in order and named in an
    ``event:`` line; completions chunks as plain ``data:``. Keys are scrubbed."""

    def __init__(self, dialect: Dialect, scrubber: Scrubber) -> None:
        self._named = isinstance(dialect, ResponsesDialect)
        self._scrubber = scrubber
        self._number = 0
        self.sent = ""

    def event(self, data: Mapping[str, Any]) -> bytes:
        payload = dict(data)
        head = b""
        if self._named:
            payload["sequence_number"] = self._number
            self._number += 1
            head = f"event: {payload.get('type')}\n".encode()
        return self._scrubber.raw(head + b"data: " + json_bytes(payload) + b"\n\n")
