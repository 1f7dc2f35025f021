"""Verification and policies, plugged into the chat service's extension points.

``VerificationService`` is all three kinds of extension (see :mod:`proxy.extensions`):

- as a *preparer* it picks the request's policy before the upstream is called (so an unknown
  or forbidden policy is a 4xx, not a broken stream) and keeps it on the request context;
- as a *stream transformer* it runs the policy's stream mode (:mod:`proxy.verification.streams`),
  whose typed events it renders as chat chunks at the edge
  (:mod:`proxy.verification.chat_stream`);
- as a *response finaliser* it verifies a whole completion, enforces block/redact and adds the
  top-level ``verification`` report;
- as a *failure observer* it audits a request whose answer never came (the upstream failed).

``POST /v1/verify`` goes through :meth:`VerificationService.verify_answer`: the same verifier,
judge cascade and policies, for an answer the caller brings.

The evidence is what the retrieval preparer left in ``ctx.state.evidence`` (none: every
check-worthy sentence comes out ``unsupported`` and the report says no evidence was retrieved).
Each finished response goes to the ``ResponseRecorder`` (metrics, audit log, review queue) as
one :class:`~proxy.outcome.ResponseOutcome`.

With the per-request option ``include_evidence: true`` the completion, or the stream's report
chunk, also carries ``evidence_documents`` beside ``verification``: the injected abstracts in
full (the playground highlights evidence spans inside them). The report itself stays as its
published schema says.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import replace
from functools import partial
from typing import Any

import anyio.to_thread

from policies import (
    DecidedReport,
    OnVerifierError,
    Policy,
    PolicyStore,
    StreamMode,
    apply_policy,
    skipped,
)
from proxy.audit.recorder import ResponseRecorder
from proxy.errors import ProxyError
from proxy.extensions import RequestContext
from proxy.metrics import Metrics
from proxy.outcome import ResponseOutcome, StageTimings
from proxy.protocol import ChatRequest
from proxy.settings.retrieval import QuoteDisplay
from proxy.settings.verification import VerificationSettings
from proxy.state.reports import ReportStore
from proxy.streaming import StreamChunk
from proxy.verification.annotations import citation_links
from proxy.verification.chat_stream import DOCUMENTS_FIELD, chat_chunks
from proxy.verification.choices import with_other_choices
from proxy.verification.completion import verify_completion
from proxy.verification.events import Opened, Report, StreamEvent
from proxy.verification.judge import JudgeResources
from proxy.verification.selection import check_opt_out, select_policy, skipped_reason
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.shapes import (
    TEXT_PART_SEPARATOR,
    asks_for_json,
    asks_for_structure,
    choice_shapes,
    content_text,
    message_text,
)
from proxy.verification.streams import StreamShape, failure_reason, verified_stream
from verifiers import Evidence, ResponseReport, Verifier
from verifiers.judge import EscalationRun

logger = logging.getLogger("veriproxy.verification")


class VerificationService:
    def __init__(
        self,
        settings: VerificationSettings,
        policies: PolicyStore,
        metrics: Metrics,
        recorder: ResponseRecorder,
        *,
        verifier: Verifier | None = None,
        reports: ReportStore | None = None,
        judge: JudgeResources | None = None,
        quotes_in_text: QuoteDisplay = QuoteDisplay.STRIP,
    ) -> None:
        self._settings = settings
        self._quotes = quotes_in_text  # retrieval.citations.quotes_in_text
        self._judge = judge
        self._reports = reports
        self._policies = policies
        self._metrics = metrics
        self._recorder = recorder
        self._verifier = verifier
        self._lock = threading.Lock()

    @property
    def verifier(self) -> Verifier:
        """The verifier, loaded on first use (the bundled models take a second to load)."""
        with self._lock:
            if self._verifier is None:
                self._verifier = Verifier.from_config(self._settings.verifier)
            return self._verifier

    # -- preparer ---------------------------------------------------------------------------

    async def prepare(self, request: ChatRequest, ctx: RequestContext) -> ChatRequest:
        if not self._settings.enabled:
            return request
        policy = self._select_policy(ctx)
        if ctx.options.verify is False:
            check_opt_out(policy)  # 403 unless the policy lets callers skip verification
            ctx.state.verification_skipped = True
        ctx.state.policy = policy
        ctx.state.json_answer = asks_for_json(request.body)
        ctx.state.structured_answer = asks_for_structure(request.body)
        ctx.state.prompt = _prompt(request.messages)
        return request

    # -- stream transformer -----------------------------------------------------------------

    def transform(
        self, chunks: AsyncIterator[StreamChunk], ctx: RequestContext
    ) -> AsyncIterator[StreamChunk]:
        if ctx.state.verification_skipped and (skipped := ctx.state.policy) is not None:
            return _recorded(chunks, lambda answer: self._record_skipped(skipped, ctx, answer))
        session = self._session(ctx)
        if session is None:
            return chunks
        gate = session.policy.stream_mode is StreamMode.GATE
        shape = StreamShape(
            json_content=ctx.state.json_answer,
            structured=ctx.state.structured_answer,
            quotes=self._quotes,
        )

        def record(outcome: Outcome, answer: str) -> None:
            self._record(outcome, ctx, answer)

        def other_session(choice: int, fail_closed: bool) -> VerificationSession:
            other = self._session(ctx, choice, fail_closed=fail_closed)
            assert other is not None  # the policy is set
            return other

        events = with_other_choices(
            chunks,
            lambda first: verified_stream(first, session, shape, record),
            other_session,
            record,
            gate=gate,
            quotes=self._quotes,
        )
        if self._reports is not None:
            events = _storing(events, self._reports, ctx)
        documents = _documents(session.evidence) if ctx.options.include_evidence else None
        return chat_chunks(events, documents)

    # -- response finaliser -----------------------------------------------------------------

    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        policy = ctx.state.policy
        if policy is None:
            return completion
        if ctx.state.verification_skipped:
            answer = TEXT_PART_SEPARATOR.join(map(message_text, choice_shapes(completion)))
            report = self._record_skipped(policy, ctx, answer)
            ctx.state.response_headers["X-Veriproxy-Status"] = report.status.value
            return completion

        def new_session(choice: int) -> VerificationSession:
            session = self._session(ctx, choice)
            assert session is not None  # the policy is set
            return session

        verified = await verify_completion(
            completion,
            new_session,
            lambda outcome, answer: self._record(outcome, ctx, answer),
            json_content=ctx.state.json_answer,
            structured=ctx.state.structured_answer,
            quotes=self._quotes,
        )
        ctx.state.response_headers.update(verified.headers)
        ctx.state.report = verified.report
        out = verified.body
        completion_id = out.get("id")
        if self._reports is not None and isinstance(completion_id, str):
            await self._reports.put((completion_id, ctx.request_id), ctx.tenant, verified.report)
        if ctx.options.include_evidence:
            out[DOCUMENTS_FIELD] = _documents(verified.evidence_of.evidence)
        return out

    # -- /v1/verify --------------------------------------------------------------------------

    def policy_for(
        self, tenant: str | None, requested: str | None, key_policies: tuple[str, ...]
    ) -> Policy:
        """The policy an answer the caller brings is judged under (no model to match)."""
        return select_policy(
            self._policies,
            tenant=tenant,
            model=None,
            requested=requested,
            key_policies=key_policies,
        )

    async def verify_answer(
        self, answer: str, evidence: tuple[Evidence, ...], policy: Policy, tenant: str | None
    ) -> DecidedReport:
        """The report on an answer the caller brings, as a chat completion's would be: judged
        within the verification timeout, escalated as the policy says, the policy applied. A
        verifier that fails gives ``unverified`` with the reason, not a 500; the policy's
        ``on_verifier_error`` decides what that means."""
        verifier = await anyio.to_thread.run_sync(lambda: self.verifier)  # loads on first use
        seconds = self._settings.timeout_seconds
        started = time.perf_counter()
        try:
            # The whole request honours the deadline: the verifier checks it between batches
            # only, and one batch over a large evidence set can run long past it. Abandoned,
            # the worker stops at its next batch; the caller has its answer at the deadline.
            with anyio.fail_after(seconds):
                report = await anyio.to_thread.run_sync(
                    partial(verifier.verify, seconds=seconds),
                    answer,
                    evidence,
                    abandon_on_cancel=True,
                )
        except TimeoutError:
            error = f"verification did not finish within {seconds:g} s"
            report = verifier.report((), evidence, {}, started, error=error)
        except Exception as exc:
            logger.error("verifier failed", exc_info=exc)
            report = verifier.report(
                (),
                evidence,
                {},
                time.perf_counter(),
                error=f"verifier error ({type(exc).__name__})",
            )
        return apply_policy(policy, await self.judged(report, policy, tenant, evidence))

    async def judged(
        self,
        report: ResponseReport,
        policy: Policy,
        tenant: str | None,
        evidence: Sequence[Evidence],
    ) -> ResponseReport:
        """A whole answer's report through the judge cascade its policy configures (the
        ``POST /v1/verify`` route; chats escalate inside their session)."""
        run = self._escalation(policy, tenant, tuple(evidence))
        if run is None:
            return report
        try:
            sentences = await run.escalate(report.sentences)
        except Exception as exc:  # a bug in the cascade must not lose the bundled report
            logger.error("judge cascade failed", exc_info=exc)
            error = f"judge cascade error ({type(exc).__name__})"
            return replace(report, escalation=replace(run.summary(), judge_error=error))
        return replace(self.verifier.restated(report, sentences), escalation=run.summary())

    # -- failures ---------------------------------------------------------------------------

    def failed(self, error: ProxyError, ctx: RequestContext) -> None:
        """Audit a request whose answer never reached verification (the upstream failed before
        it): the policy's verifier-error rule decides the recorded status."""
        session = self._session(ctx)
        if session is not None:
            self._record(session.stop(failure_reason(error)), ctx, "")

    # -- helpers ----------------------------------------------------------------------------

    def _select_policy(self, ctx: RequestContext) -> Policy:
        return select_policy(
            self._policies,
            tenant=ctx.tenant,
            model=ctx.model,
            requested=ctx.options.policy,
            key_policies=ctx.key_policies,
        )

    def _record_skipped(self, policy: Policy, ctx: RequestContext, answer: str) -> DecidedReport:
        """Audit an answer whose caller skipped verification, as the policy allowed."""
        verified = self.verifier.report(
            (), (), {}, time.perf_counter(), error=skipped_reason(policy)
        )
        report = skipped(policy, verified)
        self._recorder.record_response(_response_outcome(ctx, report, answer))
        return report

    def _session(
        self, ctx: RequestContext, choice: int = 0, *, fail_closed: bool = False
    ) -> VerificationSession | None:
        """A session for one choice; ``fail_closed``: what cannot be verified is withheld,
        whatever the policy's ``on_verifier_error`` says."""
        policy = ctx.state.policy
        if policy is None or ctx.state.verification_skipped:
            return None
        if fail_closed:
            policy = replace(policy, on_verifier_error=OnVerifierError.CLOSED)
        evidence = ctx.state.evidence
        return VerificationSession(
            self.verifier,
            policy,
            evidence,
            timeout=self._settings.timeout_seconds,
            max_sentence_chars=self._settings.max_sentence_chars,
            on_error=lambda kind: self._metrics.verifier_errors.labels(kind).inc(),
            on_unverified=lambda reason: self._metrics.unverified.labels(ctx.route, reason).inc(),
            notes=_evidence_notes(ctx, evidence),
            choice=choice,
            escalation=self._escalation(policy, ctx.tenant, evidence),
            links=citation_links(evidence, ctx.state.document_links),
        )

    def _escalation(
        self, policy: Policy, tenant: str | None, evidence: tuple[Evidence, ...]
    ) -> EscalationRun | None:
        """The judge cascade for one answer: the policy's ``escalate`` or the global one."""
        settings = policy.escalate or self._settings.escalate
        if settings is None or self._judge is None:
            return None
        cascade = self._judge.cascade(settings, self.verifier)
        return cascade.run(evidence, tenant or "") if cascade is not None else None

    def _record(self, outcome: Outcome, ctx: RequestContext, answer: str) -> None:
        self._recorder.record_response(_response_outcome(ctx, outcome.report, answer, outcome))


def _response_outcome(
    ctx: RequestContext, report: DecidedReport, answer: str, decided: Outcome | None = None
) -> ResponseOutcome:
    """The session's outcome (None: verification was skipped) with what the audit record and
    the metrics need besides: who, which API, the prompt and answer (kept only with
    ``audit.include_text``) and the retrieval time."""
    retrieval = ctx.state.retrieval_ms
    timings = decided.timings if decided is not None else StageTimings()
    if retrieval is not None:
        timings = replace(timings, retrieval_ms=round(retrieval, 2))
    return ResponseOutcome(
        request_id=ctx.request_id,
        tenant=ctx.tenant,
        model=ctx.model,
        report=report,
        decision=decided.decision if decided is not None else None,
        sentence_decisions=decided.sentences if decided is not None else (),
        route=ctx.route,
        prompt=ctx.state.prompt,
        answer=answer,
        timings=timings,
        evidence=ctx.state.evidence,
    )


def _prompt(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The text of the caller's last user message (None without one)."""
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return content_text(message.get("content"))[0]
    return None


def _evidence_notes(ctx: RequestContext, evidence: tuple[Evidence, ...]) -> tuple[str, ...]:
    """Say so when the answer was judged without evidence, and why (the policy decides what
    that means: every check-worthy sentence is unsupported)."""
    failure = ctx.state.retrieval_error
    if failure:
        return (f"no evidence retrieved: {failure}",)
    return () if evidence else ("no evidence retrieved",)


def _documents(evidence: Sequence[Evidence]) -> list[dict[str, Any]]:
    return [
        {
            "pmid": e.pmid,
            "title": e.title,
            "abstract": e.abstract,
            "journal": e.journal,
            "year": e.year,
            "score": e.score,
            "retriever": e.retriever,
        }
        for e in evidence
    ]


async def _recorded(
    stream: AsyncIterator[StreamChunk], record: Callable[[str], object]
) -> AsyncIterator[StreamChunk]:
    """``stream`` unchanged; at its end (or the client's) ``record`` gets the text it carried."""
    texts: list[str] = []
    try:
        async with aclosing(stream):  # type: ignore[type-var]
            async for chunk in stream:
                data = chunk.data
                for choice in (data or {}).get("choices") or ():
                    delta = choice.get("delta") if isinstance(choice, dict) else None
                    content = delta.get("content") if isinstance(delta, dict) else None
                    if isinstance(content, str):
                        texts.append(content)
                yield chunk
    finally:
        record("".join(texts))


async def _storing(
    events: AsyncIterator[StreamEvent], reports: ReportStore, ctx: RequestContext
) -> AsyncIterator[StreamEvent]:
    """``events`` with the report of choice 0, as the client gets it, stored by completion id
    before the client gets it, so a client that reads the report chunk and then asks for the
    report finds it."""
    completion_id = None
    async with aclosing(events):  # type: ignore[type-var]
        async for event in events:
            if isinstance(event, Opened) and event.choice == 0:
                completion_id = event.envelope.get("id")
            elif isinstance(event, Report) and event.choice == 0 and isinstance(completion_id, str):
                await reports.put((completion_id, ctx.request_id), ctx.tenant, event.shown)
            yield event
