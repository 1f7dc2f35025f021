"""The retrieval request preparer: query → evidence → injected system message.

Runs first in the chat service's preparer chain. Per request: ``retrieve: false`` turns it off;
client ``documents`` replace retrieval. The evidence that was injected is left in
``ctx.state.evidence`` (in the order listed to the model) for the verification step,
``ctx.state.evidence_query`` holds the query and ``ctx.state.retrieval_error`` says why
retrieval failed, if it did. A failing backend does not fail the request: the answer goes out
without evidence and verification reports it unsupported. ``POST /v1/verify`` retrieves through
the same preparer (:meth:`EvidencePreparer.search`), so both share its retriever and cache.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial

import anyio.to_thread

from proxy.errors import InvalidRequest, ServiceUnavailable
from proxy.evidence.documents import DocumentError, client_documents, document_links
from proxy.evidence.inject import inject
from proxy.evidence.query import build_query
from proxy.extensions import RequestContext
from proxy.limits import StageTimeout
from proxy.protocol import ChatRequest
from proxy.retrieval.base import RetrievalError, Retriever
from proxy.settings.retrieval import QuoteRequest, RetrievalSettings
from verifiers import Evidence

logger = logging.getLogger("veriproxy.evidence")


class EvidencePreparer:
    def __init__(self, retriever: Retriever | None, settings: RetrievalSettings) -> None:
        self._retriever = retriever
        self._settings = settings

    async def prepare(self, request: ChatRequest, ctx: RequestContext) -> ChatRequest:
        options = ctx.options
        if options.documents is not None:
            try:
                # Segmenting up to 50 documents of 20 KB is CPU work: off the event loop.
                evidence = await anyio.to_thread.run_sync(client_documents, options.documents)
            except DocumentError as exc:
                raise InvalidRequest(str(exc), param="veriproxy.documents") from exc
            ctx.state.document_links = document_links(options.documents)
            return await self._inject(request, ctx, evidence)
        retrieve = options.retrieve if options.retrieve is not None else self._settings.enabled
        if not retrieve or self._retriever is None:
            return request
        query = build_query(request.messages, context_turns=self._settings.context_turns)
        ctx.state.evidence_query = query
        if not query:
            return request
        started = time.perf_counter()
        try:
            found = await self.search(query)
            ctx.state.retrieval_ms = (time.perf_counter() - started) * 1000
        except RetrievalError as exc:
            logger.warning("retrieval failed (%s): answering without evidence", exc)
            ctx.state.retrieval_error = str(exc)
            found = ()
        except StageTimeout as exc:
            logger.warning("%s: answering without evidence", exc.message)
            ctx.state.retrieval_error = f"retrieval timed out after {exc.seconds:g} s"
            found = ()
        return await self._inject(request, ctx, found)

    async def search(self, query: str, top_k: int | None = None) -> tuple[Evidence, ...]:
        """The retriever's evidence for ``query`` (``top_k`` defaults to the configured one),
        within the retrieval timeout. Raises :class:`RetrievalError` when the backend fails,
        :class:`StageTimeout` past the timeout, :class:`ServiceUnavailable` when retrieval is
        disabled."""
        if self._retriever is None:
            raise ServiceUnavailable("retrieval is disabled: send the evidence with the answer")
        timeout = self._settings.timeout_seconds
        try:
            async with asyncio.timeout(timeout):
                found = await self._retriever.search(query, top_k=top_k or self._settings.top_k)
        except TimeoutError:
            raise StageTimeout("retrieval", timeout) from None
        return tuple(found)

    async def _inject(
        self, request: ChatRequest, ctx: RequestContext, evidence: tuple[Evidence, ...]
    ) -> ChatRequest:
        messages, injected = await anyio.to_thread.run_sync(
            partial(
                inject,
                budget=self._settings.token_budget,
                quotes=self._settings.citations.quotes is QuoteRequest.ASK,
            ),
            request.messages,
            evidence,
        )
        ctx.state.evidence = injected
        return request.with_body(messages=messages)

    async def aclose(self) -> None:
        if self._retriever is not None:
            await self._retriever.aclose()
