"""``POST /v1/verify``: verify an answer without calling an LLM.

Body: ``{"answer": "...", "evidence": [{"pmid", "title", "abstract" | "sentences"}, ...]}`` or
``{"answer": "...", "question": "..."}`` to retrieve the evidence first, through the chats'
evidence preparer (its retriever and shared cache; the demo index by default). Response: the
response-level report (``policies/protocol/response_report.schema.json``) with the caller's
policy applied, as a chat completion gets it (``veriproxy.policy`` in the body or
``X-Veriproxy-Policy``, else the key's own policy, else the one matching the tenant, else
``default``): a sentence citing a PMID that is not in the evidence is never ``verified``. The
verifier, judge cascade and policies are the chats' (:class:`~proxy.pipeline.Pipeline`), opened
and closed with the app.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from proxy.auth import Principal, require_policy
from proxy.errors import InvalidRequest, ServiceUnavailable
from proxy.limits import check_evidence_chars
from proxy.pipeline import Pipeline
from proxy.protocol import parse_body, parse_options, read_body
from proxy.retrieval.base import RetrievalError
from verifiers import Evidence, make_evidence, to_json

MAX_EVIDENCE = 100
MAX_TOP_K = 50


class _EvidenceModel(BaseModel):
    model_config = ConfigDict(extra="allow")

    pmid: str = Field(min_length=1)
    title: str = ""
    abstract: str | list[str] = ""
    sentences: list[str] | None = None

    @property
    def chars(self) -> int:
        texts = [
            self.title,
            *([self.abstract] if isinstance(self.abstract, str) else self.abstract),
        ]
        return sum(map(len, texts)) + sum(map(len, self.sentences or ()))

    @field_validator("pmid", mode="before")
    @classmethod
    def _number_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class VerifyRequestModel(BaseModel):
    model_config = ConfigDict(extra="allow")

    answer: str = Field(min_length=1)
    evidence: list[_EvidenceModel] | None = Field(default=None, max_length=MAX_EVIDENCE)
    question: str | None = Field(default=None, min_length=1)
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    veriproxy: dict[str, Any] | None = None  # per-request options, as in a chat completion


async def verify(request: Request) -> JSONResponse:
    state = request.app.state
    body = parse_body(await read_body(request, state.settings.max_body_bytes), VerifyRequestModel)
    if body.evidence is None and body.question is None:
        raise InvalidRequest("send evidence, or a question to retrieve it", param="evidence")
    principal: Principal = request.state.principal
    options = parse_options(body.veriproxy, request.headers)
    if options.policy is not None:
        require_policy(principal, options.policy)
    pipeline: Pipeline = state.pipeline
    service = pipeline.verification
    policy = service.policy_for(principal.tenant, options.policy, principal.allowed_policies)
    if body.evidence is not None:
        check_evidence_chars(sum(e.chars for e in body.evidence), state.settings.limits, "evidence")
        # Segmenting the abstracts is CPU work: off the event loop, so other requests go on.
        evidence = await anyio.to_thread.run_sync(_client_evidence, body.evidence)
    else:
        try:
            evidence = await pipeline.evidence.search(body.question or "", top_k=body.top_k)
        except RetrievalError as exc:  # its message is safe to show
            raise ServiceUnavailable(f"retrieval failed: {exc}") from None
    report = await service.verify_answer(body.answer, evidence, policy, principal.tenant)
    return JSONResponse(to_json(report))


def _client_evidence(items: list[_EvidenceModel]) -> tuple[Evidence, ...]:
    return tuple(
        make_evidence(e.pmid, e.title, e.sentences or e.abstract, retriever="client") for e in items
    )


ROUTES = [Route("/v1/verify", verify, methods=["POST"])]
