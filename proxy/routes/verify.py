"""``POST /v1/verify``: verify an answer without calling an LLM.

Body: ``{"answer": "...", "evidence": [{"pmid", "title", "abstract" | "sentences"}, ...]}`` or
``{"answer": "...", "question": "..."}`` to retrieve the evidence first with the configured
retriever (``settings.retrieval``; the demo index by default). Response: the response-level
report (``verifiers/schema/response_report.schema.json``) with the caller's policy applied, as
a chat completion gets it (``veriproxy.policy`` in the body or ``X-Veriproxy-Policy``, else the
key's own policy, else the one matching the tenant, else ``default``): a sentence citing a PMID
that is not in the evidence is never ``verified``. The verifier is the chat pipeline's when
verification is on, else built once from ``settings.verification.verifier``.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from policies import Policy, PolicyStore, apply_policy
from proxy.auth import Principal, require_policy
from proxy.errors import InvalidRequest, ServiceUnavailable
from proxy.limits import check_evidence_chars
from proxy.protocol import load_json, parse_options, read_body
from proxy.retrieval.base import Retriever
from proxy.verification.selection import select_policy
from proxy.verification.service import VerificationService
from verifiers import Evidence, ReportStatus, ResponseReport, to_json
from verifiers.engine import Verifier
from verifiers.windows import make_evidence

MAX_EVIDENCE = 100
MAX_TOP_K = 50
_lock = threading.Lock()
logger = logging.getLogger("veriproxy.verify")


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
    body = _parse(await read_body(request, request.app.state.settings.max_body_bytes))
    policy = await _policy(request, body)
    evidence = await _evidence(request, body)
    verifier = await anyio.to_thread.run_sync(_verifier, request)
    seconds = request.app.state.settings.verification.timeout_seconds
    report = await _report(verifier, body.answer, evidence, seconds)
    service: VerificationService | None = getattr(request.app.state, "verification", None)
    if service is not None:  # the LLM judge cascade, when configured
        principal: Principal = request.state.principal
        report = await service.judged(report, policy, principal.tenant, evidence)
    return JSONResponse(to_json(apply_policy(policy, report)))


async def _report(
    verifier: Verifier, answer: str, evidence: list[Evidence], seconds: float
) -> ResponseReport:
    """The report, judged in a worker thread and stopped at ``seconds`` (``unverified``, saying
    how far it got). A verifier that fails gives ``unverified`` with the reason, as in a chat,
    not a 500; the policy's ``on_verifier_error`` decides what either means."""
    try:
        return await verifier.averify(answer, evidence, seconds=seconds)
    except Exception as exc:
        logger.error("verifier failed", exc_info=exc)
        report = verifier.report([], evidence, {}, time.perf_counter())
        error = f"verifier error ({type(exc).__name__})"
        return replace(report, status=ReportStatus.UNVERIFIED, faithful=False, error=error)


async def _policy(request: Request, body: VerifyRequestModel) -> Policy:
    principal: Principal = request.state.principal
    options = parse_options(body.veriproxy, request.headers)
    if options.policy is not None:
        require_policy(principal, options.policy)
    store = await anyio.to_thread.run_sync(_policies, request)
    return select_policy(
        store,
        tenant=principal.tenant,
        model=None,
        requested=options.policy,
        key_policies=principal.allowed_policies,
    )


def _policies(request: Request) -> PolicyStore:
    """The chat pipeline's policies, or (verification off) the configured ones, read once."""
    state = request.app.state
    with _lock:
        store: PolicyStore | None = state.policies or getattr(state, "verify_policies", None)
        if store is None:
            settings = state.settings.verification
            dirs = (settings.policies_dir,) if settings.policies_dir else ()
            store = PolicyStore(*dirs, default=settings.default_policy)
            state.verify_policies = store
        return store


def _parse(raw: bytes) -> VerifyRequestModel:
    data, _ = load_json(raw)
    try:
        body = VerifyRequestModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(p) for p in first["loc"]) or None
        raise InvalidRequest(f"invalid {param or 'body'}: {first['msg']}", param=param) from None
    if body.evidence is None and body.question is None:
        raise InvalidRequest("send evidence, or a question to retrieve it", param="evidence")
    return body


async def _evidence(request: Request, body: VerifyRequestModel) -> list[Evidence]:
    if body.evidence is not None:
        items = body.evidence
        chars = sum(e.chars for e in items)
        check_evidence_chars(chars, request.app.state.settings.limits, "evidence")
        # Segmenting the abstracts is CPU work: off the event loop, so other requests go on.
        return await anyio.to_thread.run_sync(_client_evidence, items)
    question = body.question or ""  # _parse guarantees one of evidence / question
    retriever = await anyio.to_thread.run_sync(_retriever, request)
    if retriever is None:
        raise ServiceUnavailable("retrieval is disabled: send the evidence with the answer")
    found: list[Evidence] = await retriever.search(question, top_k=body.top_k)
    return found


def _client_evidence(items: list[_EvidenceModel]) -> list[Evidence]:
    return [
        make_evidence(e.pmid, e.title, e.sentences or e.abstract, retriever="client") for e in items
    ]


def _retriever(request: Request) -> Retriever | None:
    """``app.state.retriever`` when set, else the configured one (the demo index by default),
    built on first use; None when retrieval is disabled."""
    state = request.app.state
    with _lock:
        retriever: Retriever | None = getattr(state, "retriever", None)
        if retriever is None and state.settings.retrieval.enabled:
            from proxy.evidence.factory import build_retriever

            retriever = build_retriever(state.settings.retrieval)
            state.retriever = retriever
        return retriever


def _verifier(request: Request) -> Verifier:
    """The app's verifier, built on first use (loading the models takes a moment)."""
    state = request.app.state
    service = getattr(state, "verification", None)
    if service is not None:
        shared: Verifier = service.verifier  # the chat pipeline's, already loaded
        return shared
    with _lock:
        verifier: Verifier | None = getattr(state, "verifier", None)
        if verifier is None:
            verifier = Verifier.from_config(state.settings.verification.verifier)
            state.verifier = verifier
        return verifier


ROUTES = [Route("/v1/verify", verify, methods=["POST"])]
