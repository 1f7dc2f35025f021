"""The retrieval request preparer: query → evidence → injected system message.

Runs first in the chat service's preparer chain. Per request: ``retrieve: false`` turns it off;
client ``documents`` replace retrieval. The evidence that was injected is left in
``ctx.attachments["evidence"]`` (a tuple of :class:`~verifiers.Evidence`, in the order listed to
the model) for the verification step; ``"evidence_query"`` holds the query and
``"retrieval_error"`` says why retrieval failed, if it did. A failing backend does not fail the
request: the answer goes out without evidence and verification reports it unsupported.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial

import anyio.to_thread

from proxy.errors import InvalidRequest
from proxy.evidence.documents import DocumentError, client_documents
from proxy.evidence.inject import inject
from proxy.evidence.query import build_query
from proxy.extensions import RequestContext
from proxy.protocol import ChatRequest
from proxy.retrieval.base import RetrievalError, Retriever
from proxy.settings.retrieval import RetrievalSettings
from verifiers import Evidence

logger = logging.getLogger("veriproxy.evidence")

EVIDENCE_KEY = "evidence"
QUERY_KEY = "evidence_query"
ERROR_KEY = "retrieval_error"


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
            return await self._inject(request, ctx, evidence)
        retrieve = options.retrieve if options.retrieve is not None else self._settings.enabled
        if not retrieve or self._retriever is None:
            ctx.attachments[EVIDENCE_KEY] = ()
            return request
        query = build_query(request.messages, context_turns=self._settings.context_turns)
        ctx.attachments[QUERY_KEY] = query
        if not query:
            ctx.attachments[EVIDENCE_KEY] = ()
            return request
        timeout = self._settings.timeout_seconds
        try:
            async with asyncio.timeout(timeout):
                found = await self._retriever.search(query, top_k=self._settings.top_k)
        except RetrievalError as exc:
            logger.warning("retrieval failed (%s): answering without evidence", exc)
            ctx.attachments[ERROR_KEY] = str(exc)
            found = []
        except TimeoutError:
            logger.warning("retrieval took over %g s: answering without evidence", timeout)
            ctx.attachments[ERROR_KEY] = f"retrieval timed out after {timeout:g} s"
            found = []
        return await self._inject(request, ctx, tuple(found))

    async def _inject(
        self, request: ChatRequest, ctx: RequestContext, evidence: tuple[Evidence, ...]
    ) -> ChatRequest:
        messages, injected = await anyio.to_thread.run_sync(
            partial(inject, budget=self._settings.token_budget), request.messages, evidence
        )
        ctx.attachments[EVIDENCE_KEY] = injected
        return request.with_body(messages=messages)

    async def aclose(self) -> None:
        if self._retriever is not None:
            await self._retriever.aclose()
