"""``record_response``: the one call made when a response's report is final.

It counts the report in the metrics (sentences by verdict and harm, outcome, risk, fabricated
citations, stage latencies) and writes the audit record. Metric labels are bounded here
(unconfigured models and tenants become ``other``); the audit record keeps the real names.
"""

from __future__ import annotations

from typing import Protocol

from proxy.audit.log import AuditLog
from proxy.audit.record import ResponseContext, build_record
from proxy.metrics import Metrics
from verifiers import ResponseReport


class ReportObserver(Protocol):
    """Also shown every final report: the review queue (:mod:`proxy.review`) samples it."""

    def offer(self, report: ResponseReport, ctx: ResponseContext) -> None: ...


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

    def record_response(self, report: ResponseReport, ctx: ResponseContext) -> None:
        model = self._metrics.model_label(ctx.model)
        tenant = self._metrics.tenant_label(ctx.tenant)
        self._metrics.observe_report(report, model, tenant)
        self._metrics.observe_stages({**report.latency_ms, **ctx.latency_ms})
        if self._audit.enabled:
            self._audit.write(build_record(report, ctx, include_text=self._include_text))
        if self._review is not None:
            self._review.offer(report, ctx)
