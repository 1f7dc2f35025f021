"""What one response came to: the one value the audit record, the metrics, the review queue and
the report store take, so none of them can disagree with another.

The verification session decides the report and the policy's decisions
(:class:`~proxy.verification.session.Outcome`); the verification service adds who asked, on
which API, the prompt and the answer, and the retrieval time, and hands on a
:class:`ResponseOutcome`. Whether the prompt and answer reach the audit log is the recorder's
to say (``audit.include_text``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from policies import DecidedReport, ResponseDecision, SentenceDecision
from verifiers import Evidence


@dataclass(frozen=True, slots=True)
class StageTimings:
    """The stages of one response the metrics sample, in milliseconds (None: it did not run).

    ``retrieval``: the evidence search; ``verification``: the verifier's and the judge's own
    work (not the time a stream spends waiting for the upstream); ``policy``: deciding the
    policy. The upstream stages are sampled as they happen."""

    retrieval_ms: float | None = None
    verification_ms: float | None = None
    policy_ms: float | None = None

    def stages(self) -> Iterator[tuple[str, float]]:
        """``(stage, milliseconds)`` of each stage that ran, as the metric labels them."""
        for stage, ms in (
            ("retrieval", self.retrieval_ms),
            ("verification", self.verification_ms),
            ("policy", self.policy_ms),
        ):
            if ms is not None:
                yield stage, ms


@dataclass(frozen=True, slots=True)
class ResponseOutcome:
    """One response (one choice of it, ``n > 1``): its final report with the policy applied,
    the policy's decisions (None: the caller skipped verification, as the policy allowed), who
    asked and on which API, the prompt and answer, and the stage timings."""

    request_id: str
    tenant: str | None  # None: keyless local mode
    model: str
    report: DecidedReport
    decision: ResponseDecision | None = None
    # Each sentence's decision, in the order of ``report.sentences``.
    sentence_decisions: tuple[SentenceDecision, ...] = ()
    route: str = "/v1/chat/completions"
    prompt: str | None = None
    answer: str | None = None
    timings: StageTimings = field(default_factory=StageTimings)
    # The abstracts the answer was judged against: the review queue shows a deciding span
    # inside its abstract. Never written to the audit record.
    evidence: tuple[Evidence, ...] = ()

    @property
    def latency_ms(self) -> dict[str, float]:
        """The audit record's latencies: the report's, then the retrieval time."""
        retrieval = self.timings.retrieval_ms
        return {**self.report.latency_ms, **({} if retrieval is None else {"retrieval": retrieval})}
