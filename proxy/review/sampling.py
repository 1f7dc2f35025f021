"""Which sentences of a final report enter the review queue, and with what probability.

Every sentence a policy flagged, redacted or blocked enters, as does every one the verifier
marked ``needs_review`` (inclusion probability 1). The rest are drawn independently at their
verdict's rate (``review.rates``), and a verified response may also be drawn whole
(``review.verified_response_rate``), so that its precision as a response can be measured. A
sentence of a verified response is therefore in the queue with probability
``1 - (1 - rate) * (1 - response_rate)``, which is what its item records.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from policies import Action, DecidedReport, DecidedSentence, ReportStatus
from proxy.errors import sanitise
from proxy.outcome import ResponseOutcome
from proxy.review.items import FailedCheck, Quote, ReviewItem
from proxy.scrub import without_surrogates
from proxy.settings.review import ReviewSettings
from verifiers import EvidenceSpan

Draw = Callable[[], float]  # uniform on [0, 1)


class Sampler:
    def __init__(self, settings: ReviewSettings, draw: Draw | None = None) -> None:
        self._settings = settings
        self._draw = draw or random.SystemRandom().random

    def select(self, outcome: ResponseOutcome, now: float) -> list[ReviewItem]:
        """The items of one response's report (empty when nothing was verified)."""
        settings = self._settings
        report, ctx = outcome.report, outcome
        if not settings.samples(ctx.tenant) or report.status is ReportStatus.UNVERIFIED:
            return []
        verified = report.status is ReportStatus.VERIFIED
        response_rate = settings.verified_response_rate if verified else 0.0
        whole = response_rate > 0 and self._draw() < response_rate
        items = []
        for sentence in report.sentences:
            rate = settings.rate(sentence.verdict.value)
            if sentence.action is not Action.ANNOTATE:
                reason, inclusion = "action", 1.0
            elif sentence.needs_review:
                reason, inclusion = "needs_review", 1.0
            else:
                inclusion = rate + response_rate - rate * response_rate
                drawn = rate > 0 and self._draw() < rate
                if not (drawn or whole):
                    continue
                reason = "sampled" if drawn else "response"
            items.append(
                _item(
                    report, ctx, sentence, now, reason, inclusion, response_rate if whole else None
                )
            )
        return items


def _abstract(abstract: str, span: EvidenceSpan) -> str:
    """The abstract when the span's offsets read the span's words in it, else nothing (a span of
    evidence the client brought may not index into a stored abstract)."""
    return abstract if abstract[span.start : span.end] == span.text else ""


def _item(
    report: DecidedReport,
    ctx: ResponseOutcome,
    s: DecidedSentence,
    now: float,
    reason: str,
    inclusion: float,
    response_inclusion: float | None,
) -> ReviewItem:
    spans = (*s.evidence, *(span for claim in s.claims for span in claim.evidence))
    abstracts = {e.pmid: e.abstract for e in ctx.evidence}
    checks = (*s.checks, *(check for claim in s.claims for check in claim.checks))
    return ReviewItem(
        request_id=ctx.request_id,
        choice=report.choice,
        sentence=s.index,
        tenant=ctx.tenant,
        model=ctx.model,
        time=now,
        # As the audit log keeps text: nothing that looks like a key, no lone surrogates.
        text=sanitise(without_surrogates(s.text), limit=None),
        verdict=s.verdict.value,
        confidence=s.confidence,
        harm=s.harm,
        action=s.action.value,
        response_status=report.status.value,
        response_sentences=len(report.sentences),
        needs_review=reason == "needs_review",
        reason=reason,
        inclusion=inclusion,
        response_inclusion=response_inclusion,
        evidence=tuple(
            dict.fromkeys(
                Quote(
                    q.pmid,
                    q.title,
                    q.text,
                    q.start,
                    q.end,
                    q.label.value,
                    q.score,
                    _abstract(abstracts.get(q.pmid, ""), q),
                )
                for q in spans
            )
        ),
        failed_checks=tuple(
            dict.fromkeys(FailedCheck(c.name, c.detail) for c in checks if not c.passed)
        ),
        rules_fired=s.rules_fired,
        decided_by=s.decided_by,
    )
