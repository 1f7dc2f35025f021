"""One response's verification: the verifier stream, the chosen policy, timeouts and errors.

Every verifier call runs in a worker thread under ``timeout_seconds``. A timeout or an exception
is a verifier error: the session stops verifying, and the final report is ``unverified`` with
the reason, which the policy's ``on_verifier_error`` turns into open / flag / closed. A session
never reports "verified" for text it did not verify.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TypeVar

import anyio
import anyio.to_thread

from policies import (
    DecidedReport,
    DecidedSentence,
    Policy,
    ResponseDecision,
    SentenceDecision,
    StreamMode,
    decide_and_apply,
    decide_sentence,
    delivered_before_block,
    record_decision,
)
from proxy.outcome import StageTimings
from proxy.verification.annotations import Link
from proxy.verification.answers import AnswerTexts
from proxy.verification.escalation import BackgroundEscalation
from proxy.verification.events import Sentence
from verifiers import (
    MAX_SENTENCE_CHARS,
    Evidence,
    ResponseReport,
    SentenceAnnotation,
    StrippedQuote,
    Verifier,
)
from verifiers.judge import EscalationRun

logger = logging.getLogger("veriproxy.verification")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The final report (policy applied) and the policy's decision, whose ``enforced_action``
    and ``message`` say what the client must get; ``timings``: the verification and policy
    stages (``policy``: deciding the policy)."""

    report: DecidedReport
    decision: ResponseDecision
    # Each sentence's decision, by position in ``report.sentences``.
    sentences: tuple[SentenceDecision, ...] = ()
    timings: StageTimings = field(default_factory=StageTimings)

    def decided(self) -> list[Sentence]:
        """The report's sentences, each with its decision."""
        return [Sentence(s, d) for s, d in zip(self.report.sentences, self.sentences, strict=True)]

    def shown_as(self, shown: Container[int]) -> DecidedReport:
        """The report a client may see: sentences whose text it was not shown are withheld."""
        return replace(
            self.report,
            sentences=tuple(
                s.annotation if s.annotation.index in shown else s.withheld().annotation
                for s in self.decided()
            ),
        )


ErrorHook = Callable[[str], None]  # called with the error kind: "timeout" or "exception"


class VerificationSession:
    def __init__(
        self,
        verifier: Verifier,
        policy: Policy,
        evidence: Sequence[Evidence],
        *,
        timeout: float,
        max_sentence_chars: int = MAX_SENTENCE_CHARS,
        on_error: ErrorHook = lambda kind: None,
        on_unverified: ErrorHook = lambda reason: None,
        notes: tuple[str, ...] = (),
        choice: int = 0,
        escalation: EscalationRun | None = None,
        links: Mapping[str, Link] | None = None,
    ) -> None:
        self.policy = policy
        # Where each evidence id's citations link to (the ``url_citation`` annotations).
        self.links: Mapping[str, Link] = links or {}
        self.choice = choice  # which choice of the completion this session verifies
        self.evidence = tuple(evidence)
        self.error: str | None = None
        self._verifier = verifier
        self._stream = verifier.stream(self.evidence, max_sentence_chars=max_sentence_chars)
        self._timeout = timeout
        # A whole answer stops itself at the timeout too (sentences are judged in batches), so
        # the worker thread is free soon after, not after judging a 2,000-sentence answer.
        self._verify_whole = partial(verifier.verify, seconds=timeout)
        self._notes = notes
        self._on_error = on_error
        self._on_unverified = on_unverified
        self._sentences: list[DecidedSentence] = []  # decided, as ``feed`` returned them
        # Each decision made as the answer streamed, by sentence index, with the sentence it
        # was made on: the final report reuses it unless the judge changed the sentence since.
        self._decided: dict[int, Sentence] = {}
        self._started = time.perf_counter()
        # The LLM judge: in gate mode it works in the background while the answer streams, and
        # each sentence it was asked about (and those after it) is held until it answered.
        self._judge = BackgroundEscalation(escalation) if escalation is not None else None
        self._held: list[SentenceAnnotation] = []  # gate mode: verified, not yet released

    async def feed(self, delta: str, quotes: Sequence[StrippedQuote] = ()) -> list[Sentence]:
        """The sentences ``delta`` completed, each with the policy's decision (applied to its
        annotation).
        ``quotes``: those taken out of ``delta`` (offsets into the whole answer), judged with
        their citations."""
        if self.error is not None or not delta:
            return []
        done = await self._call(partial(self._stream.feed, quotes=tuple(quotes)), delta)
        if done is None:
            return []
        if self._judge is not None and self.policy.stream_mode is StreamMode.GATE:
            # Annotate mode asks once, at the end: one request, one judge call after the last
            # token (asking as it streams would chain calls and make the report later).
            self._judge.submit(done)
            done = self._releasable(done)
        decided = [self._decide(s) for s in done]
        self._sentences.extend(s.annotation for s in decided)
        return decided

    async def finish(self, structured: AnswerTexts | None = None) -> tuple[list[Sentence], Outcome]:
        """The sentences not yet returned by ``feed`` and the final outcome. ``structured``:
        the parts of the answer that were not streamed as text (tool calls, a JSON answer),
        verified now that they are complete; their sentences follow the text's."""
        report = None
        if self.error is None:
            report = await self._call(self._stream.finish)
        if report is not None and structured is not None:
            report = await self._with_structured(report, structured)
        if report is not None and self._judge is not None:
            report = await self._judged(report, self._judge)
        outcome = self._conclude(report or self._so_far())
        return outcome.decided()[len(self._sentences) :], outcome

    def stop(self, reason: str | None = None) -> Outcome:
        """End early (a block, or the client went away): report what was verified so far.
        ``reason`` marks the rest of the answer as not verified."""
        if self._judge is not None:
            self._judge.cancel()
        if reason is not None and self.error is None:
            self.error = reason
        return self._conclude(self._so_far())

    async def verify(self, answer: AnswerTexts) -> Outcome:
        """Verify a whole (non-streamed) answer: its sentences carry their JSON path when the
        answer is structured, and what could not be read makes the report ``unverified``."""
        verify = partial(self._verify_whole, quotes=answer.quotes)
        report = await self._call(verify, answer.text, self.evidence)
        if report is None:
            return self._conclude(self._so_far())
        report = replace(report, sentences=tuple(answer.locate(report.sentences)))
        if self._judge is not None:
            report = await self._judged(report, self._judge)
        return self._conclude(self._with_gaps(report, answer))

    async def _with_structured(
        self, report: ResponseReport, structured: AnswerTexts
    ) -> ResponseReport | None:
        extra = None
        if structured.parts:
            extra = await self._call(self._verify_whole, structured.text, self.evidence)
            if extra is None:
                return None
        if extra is not None:
            first = len(report.sentences)
            located = structured.locate(extra.sentences)
            sentences = [
                *report.sentences,
                *(replace(s, index=first + i) for i, s in enumerate(located)),
            ]
            merged = self._verifier.report(
                sentences, self.evidence, report.latency_ms, self._started
            )
            error = report.error or extra.error
            report = merged if error is None else merged.as_unverified(error)
        return self._with_gaps(report, structured)

    def _with_gaps(self, report: ResponseReport, answer: AnswerTexts) -> ResponseReport:
        """The report with the answer's notes, and ``unverified`` for what could not be read."""
        report = replace(report, notes=(*report.notes, *answer.notes))
        for gap in answer.unverifiable:
            self._on_unverified(gap.reason.value)
        if answer.error is None:
            return report
        return report.as_unverified("; ".join(e for e in (report.error, answer.error) if e))

    def delivered(self, outcome: Outcome) -> Outcome:
        """The outcome of an answer whose text already reached the client (stream mode
        ``annotate``): a block can cut what follows but cannot take back what was sent, so the
        report says ``flagged`` with ``delivered_before_block``, never ``blocked``. The decision
        is kept: the stream still ends with ``content_filter``."""
        return replace(outcome, report=delivered_before_block(outcome.report))

    def _releasable(self, done: Sequence[SentenceAnnotation]) -> list[SentenceAnnotation]:
        """Gate mode: the held sentences, in order, up to the first the judge still works on."""
        assert self._judge is not None
        self._held.extend(done)
        released: list[SentenceAnnotation] = []
        while self._held:
            final = self._judge.final(self._held[0])
            if final is None:
                break
            released.append(final)
            self._held.pop(0)
        return released

    async def _judged(self, report: ResponseReport, judge: BackgroundEscalation) -> ResponseReport:
        """The report with the judge's verdicts: counts, risk and the AND-join follow them."""
        restated = self._verifier.restated(report, await judge.settle(report.sentences))
        latency = {**report.latency_ms, "judge": judge.summary().latency_ms}
        return replace(restated, latency_ms=latency)

    def _conclude(self, report: ResponseReport) -> Outcome:
        report = replace(report, notes=(*report.notes, *self._notes), choice=self.choice)
        if self._judge is not None:
            report = replace(report, escalation=self._judge.summary())
        started = time.perf_counter()
        sentences = tuple(
            self._known(s) or decide_sentence(self.policy, s) for s in report.sentences
        )
        applied, decision = decide_and_apply(self.policy, report, sentences)
        policy_ms = round((time.perf_counter() - started) * 1000, 3)
        work = _work_ms(report)
        # The protocol publishes both stages among the report's latencies too.
        latency = {**report.latency_ms, "verification": work, "policy": policy_ms}
        timings = StageTimings(verification_ms=work, policy_ms=policy_ms)
        return Outcome(replace(applied, latency_ms=latency), decision, sentences, timings)

    def _decide(self, sentence: SentenceAnnotation) -> Sentence:
        decision = decide_sentence(self.policy, sentence)
        applied = record_decision(sentence, decision)
        decided = self._decided[sentence.index] = Sentence(applied, decision)
        return decided

    def _known(self, sentence: SentenceAnnotation) -> SentenceDecision | None:
        """The decision made on this sentence as it streamed, if the sentence is still the
        one it was made on (the judge may have changed its verdict since)."""
        known = self._decided.get(sentence.index)
        if known is None:
            return None
        made_on = known.annotation
        same = record_decision(sentence, known.decision)
        return known.decision if same == made_on else None

    async def _call(self, fn: Callable[..., T], *args: object) -> T | None:
        try:
            with anyio.fail_after(self._timeout):
                # abandon_on_cancel: a timed-out call must not hold the response hostage.
                return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)
        except TimeoutError:
            self._fail("timeout", f"verification timed out after {self._timeout:g}s")
        except Exception as exc:
            logger.error("verifier failed", exc_info=exc)
            self._fail("exception", f"verifier error ({type(exc).__name__})")
        return None

    def _fail(self, kind: str, message: str) -> None:
        self.error = message
        self._on_error(kind)

    def _so_far(self) -> ResponseReport:
        """The report on the sentences verified so far: ``unverified``, saying why, once
        verification has stopped on an error."""
        return self._verifier.report(
            self._sentences, self.evidence, {}, self._started, error=self.error
        )


def _work_ms(report: ResponseReport) -> float:
    """The ``verification`` stage: the verifier's and the judge's own work (its per-step
    times, not the wall time a stream spends waiting for the upstream)."""
    return round(sum(ms for step, ms in report.latency_ms.items() if step != "total"), 2)
