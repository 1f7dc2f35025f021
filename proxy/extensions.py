"""Extension points of the chat service: where evidence, verification and policies plug in.

Three small protocols, each a chain that is empty by default (an empty chain is the no-op, and
with all three empty the proxy forwards bytes untouched):

1. :class:`RequestPreparer` -- runs before the upstream call. It may return a new
   :class:`~proxy.protocol.ChatRequest` (e.g. ``request.with_body(messages=...)`` to inject
   evidence) and records what it learnt for the later steps in ``ctx.state`` (the evidence it
   retrieved, the policy it chose). Raising a :class:`~proxy.errors.ProxyError` refuses the
   request.
2. :class:`StreamTransformer` -- wraps the upstream's chunk stream: an async generator that
   reads ``chunks`` and yields what the client should get. It sees every content chunk
   (``chunk.data``), may yield extra chunks (``StreamChunk.from_data({... "choices": [{"index":
   0, "delta": {}}], "verification": {...}})``), may hold chunks back (gate mode), and may stop
   early by returning: the service then closes the upstream stream, which cancels the upstream
   request. ``[DONE]`` is never in ``chunks``; the service appends it after the last chunk, so
   a response-level chunk yielded after ``chunks`` is exhausted lands right before ``[DONE]``.
   Transformers chain in order: the first wraps the upstream, the next wraps the first.
3. :class:`ResponseFinaliser` -- gets the parsed non-streaming completion and returns the one
   to send (e.g. with a top-level ``verification`` object added); headers it wants on the
   response go in ``ctx.state.response_headers``.
4. :class:`FailureObserver` -- told when a request fails before its answer could reach the
   later steps (the upstream refused, the request deadline passed), so verification can audit
   it. The services call it; routes only parse, call and respond.

Each receives a :class:`RequestContext`: the typed per-request options, request id, the model
the client asked for, and the :class:`RequestState` the steps of one request share.
:class:`Extensions` holds the four chains; pass one to ``create_app(..., extensions=...)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from proxy.protocol import ChatRequest, RequestOptions
from proxy.streaming import StreamChunk

if TYPE_CHECKING:  # both load models and rule tables; the extension interface needs neither
    from policies import DecidedReport, Policy
    from proxy.errors import ProxyError
    from verifiers import Evidence


@dataclass(slots=True)
class RequestState:
    """What one request's steps learn and hand on, each field written by the step named."""

    # Evidence preparer: what was injected, in the order listed to the model; the query it
    # searched with (None: retrieval did not run) and why retrieval failed, if it did.
    evidence: tuple[Evidence, ...] = ()
    evidence_query: str | None = None
    retrieval_error: str | None = None
    retrieval_ms: float | None = None  # how long the search took (None: no search ran)
    # The link of each client document's citation label (its ``url``, or its PubMed page when
    # it was sent with a ``pmid``): the ``url_citation`` annotations point there.
    document_links: dict[str, str] = field(default_factory=dict)
    # Verification preparer: the policy the answer is judged under (None: not verified),
    # whether the caller skipped verification as that policy allows, whether the request
    # asked for a JSON answer (``response_format``) and whether for a structured one (JSON or
    # a forced tool call: a block is declined with a ``refusal``).
    policy: Policy | None = None
    verification_skipped: bool = False
    json_answer: bool = False
    structured_answer: bool = False
    prompt: str | None = None  # the caller's last user message, for the audit record
    # Finalisers: headers for the response (verification status and risk), and the report of
    # choice 0 as the client gets it (a dialect writes it in its own format).
    response_headers: dict[str, str] = field(default_factory=dict)
    report: DecidedReport | None = None


@dataclass(frozen=True, slots=True)
class RequestContext:
    request_id: str
    model: str
    stream: bool
    tenant: str | None = None  # from the proxy key; None in keyless mode
    # The API the request came in on (``/v1/responses``, ``/v1/completions``): the audit
    # record says which API a decision came from.
    route: str = "/v1/chat/completions"
    # The policies the caller's key is bound to (its allow-list); the first is the key's own
    # policy, used when the request names none. Empty: the key is not bound.
    key_policies: tuple[str, ...] = ()
    options: RequestOptions = field(default_factory=RequestOptions)
    state: RequestState = field(default_factory=RequestState)


class RequestPreparer(Protocol):
    async def prepare(self, request: ChatRequest, ctx: RequestContext) -> ChatRequest: ...


class StreamTransformer(Protocol):
    def transform(
        self, chunks: AsyncIterator[StreamChunk], ctx: RequestContext
    ) -> AsyncIterator[StreamChunk]: ...


class ResponseFinaliser(Protocol):
    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]: ...


class FailureObserver(Protocol):
    def failed(self, error: ProxyError, ctx: RequestContext) -> None: ...


@dataclass(frozen=True, slots=True)
class Extensions:
    preparers: tuple[RequestPreparer, ...] = ()
    transformers: tuple[StreamTransformer, ...] = ()
    finalisers: tuple[ResponseFinaliser, ...] = ()
    failure_observers: tuple[FailureObserver, ...] = ()

    def failed(self, error: ProxyError, ctx: RequestContext) -> None:
        for observer in self.failure_observers:
            observer.failed(error, ctx)


NO_EXTENSIONS = Extensions()
