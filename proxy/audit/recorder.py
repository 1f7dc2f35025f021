"""``record_response``: the one call made when a response's outcome is final.

It counts the outcome in the metrics (sentences by verdict and harm, outcome, risk, fabricated
citations, stage latencies) and writes the audit record. Metric labels are bounded here
(unconfigured models and tenants become ``other``); the audit record keeps the real names.
"""

from __future__ import annotations

from typing import Protocol

from proxy.audit.log import AuditLog
from proxy.audit.record import build_record
from proxy.metrics import Metrics
from proxy.outcome import ResponseOutcome


class ReportObserver(Protocol):
    """Also shown every final outcome: the review queue (:mod:`proxy.review`) samples it."""

    def offer(self, outcome: ResponseOutcome) -> None: ...


class ResponseRecorder:
    def __init__(
        self,
        metrics: Metrics,
        audit: AuditLog | None = None,
        *,
        include_text: bool = False,
        review: ReportObserver | None = None,
    ) -> None:
        self._metrics = metrics
        self._audit = audit or AuditLog()
        self._include_text = include_text
        self._review = review

    def record_response(self, outcome: ResponseOutcome) -> None:
        model = self._metrics.model_label(outcome.model)
        tenant = self._metrics.tenant_label(outcome.tenant)
        self._metrics.observe_report(outcome.report, model, tenant)
        self._metrics.observe_stages(outcome.timings)
        if self._audit.enabled:
            self._audit.write(build_record(outcome, include_text=self._include_text))
        if self._review is not None:
            self._review.offer(outcome)
