"""Prometheus metrics: the agreed ``veriproxy_*`` catalogue, one registry per app.

Label values stay bounded: ``route`` is a known route path or ``other``, ``model`` a configured
model name or ``other``, ``tenant`` a configured tenant, ``anonymous`` (keyless local mode) or
``other`` -- never a key or anything a client typed. ``docs/observability.md`` lists every
family; the dashboards and alert rules in ``dashboards/`` use exactly these names.

Several uvicorn workers: set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory before the
workers start; every worker then writes its values there and ``/metrics`` on any worker sums
them (gauges count live workers only).

Series whose label values are known at start exist from start at zero: sentence and citation
series for every configured (model, tenant), and the error and event counters (upstream and
verifier errors, Redis fallbacks, rejected policy reloads, rate-limited requests) for every label
value the proxy emits. Prometheus' ``increase()`` and ``rate()`` need a sample before the first
event to see it, and a dashboard shows 0 rather than "No data".

The LLM judge (claims escalated from the bundled NLI model to an LLM in one request per response)
reports on plain attributes, which its caller increments directly: ``judge_escalations`` by the
escalation rule that sent the claim (``judge_rules`` names the configured rules, zeroed at start),
``judge_skipped`` (matched a rule, not sent: token budget or ``max_claims``), ``judge_requests``
by outcome, ``judge_latency`` (one observation per request), ``judge_tokens`` by kind and
``judge_verdicts`` per judged claim (agreed with the bundled verdict, overturned it, or its quote
was not found in the evidence so the bundled verdict stood). Its cache lookups count in
``veriproxy_cache_requests_total{cache="judge"}``.

The review queue (:mod:`proxy.review`) counts what it sampled and keeps its estimates, recomputed
from the review store after every label: precision of ``verified`` responses and of
``supported`` sentences with their 95% Wilson bounds, and how many were reviewed.
"""

from __future__ import annotations

import os
from collections import Counter as Counter_
from collections.abc import Iterable
from itertools import product
from re import Pattern
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from starlette.routing import compile_path

from policies import DecidedReport, ReportStatus
from proxy.auth import LOCAL_PRINCIPAL
from proxy.errors import UpstreamHTTPError, UpstreamProtocolError, UpstreamTimeout
from verifiers import Verdict

if TYPE_CHECKING:
    from proxy.outcome import StageTimings
    from proxy.review.estimate import Estimate

OTHER = "other"
ANONYMOUS = "anonymous"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
)  # fmt: skip
RISK_BUCKETS = tuple(round(0.1 * i, 1) for i in range(1, 11))
STAGES = ("retrieval", "upstream_ttft", "upstream_total", "verification", "policy")
HARMS = ("1", "2", "3", "4", "5")
# The label values each event counter is incremented with (tests/proxy/test_metrics.py pins them
# to the call sites): the series are created at zero from these.
UPSTREAM_ERROR_KINDS = ("timeout", "connect", "http_4xx", "http_5xx", "stream")
VERIFIER_ERROR_KINDS = ("timeout", "exception")
REDIS_OPERATIONS = ("cache", "ratelimit", "audit", "notify")
RATE_LIMITS = ("requests", "tokens")
RELOAD_RESULTS = ("rejected",)  # accepted reloads are not counted
# The LLM judge: claims matched by an escalation rule but not sent, judge request outcomes,
# token kinds (the judge's usage) and, per judged claim, what became of the bundled verdict.
JUDGE_SKIP_REASONS = ("budget", "max_claims")
JUDGE_REQUEST_OUTCOMES = ("ok", "timeout", "unreachable", "malformed")
JUDGE_TOKEN_KINDS = ("prompt", "completion")
JUDGE_VERDICTS = (
    "agree",
    "overturn",
    "quote_rejected",
    "quote_irrelevant",
    "check_failed",
    "quote_contradicts",
)
JUDGE_CACHE = "judge"  # the ``cache`` label of the judge's lookups in cache_requests
# One LLM request: a fraction of a second from a cache-warm local model, tens of seconds from a
# busy hosted one.
JUDGE_LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 60)


class Metrics:
    def __init__(
        self,
        routes: Iterable[str],
        models: Iterable[str],
        tenants: Iterable[str] = (),
        *,
        judge_rules: Iterable[str] = (),
        multiprocess_dir: str | None = None,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._routes, self._templates = _route_table(routes)
        self._models = frozenset(models)
        self._tenants = frozenset(tenants)
        self._judge_rules = frozenset(judge_rules)
        self._multiprocess_dir = multiprocess_dir or os.environ.get(MULTIPROC_ENV) or None
        r = self.registry
        self.requests = Counter(
            "veriproxy_requests_total",
            "Finished HTTP requests.",
            ["route", "model", "tenant", "status"],
            registry=r,
        )
        self.duration = Histogram(
            "veriproxy_request_duration_seconds",
            "Request start to last byte sent (whole stream for streams).",
            ["route", "model"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.inflight = Gauge(
            "veriproxy_inflight_requests",
            "Requests being handled.",
            ["route"],
            multiprocess_mode="livesum",
            registry=r,
        )
        self.streams_in_flight = Gauge(
            "veriproxy_streams_in_flight",
            "Streams currently open to clients.",
            multiprocess_mode="livesum",
            registry=r,
        )
        self.sentences = Counter(
            "veriproxy_sentences_total",
            "Verified answer sentences by verdict and harm potential.",
            ["verdict", "harm", "model", "tenant"],
            registry=r,
        )
        self.responses = Counter(
            "veriproxy_responses_total",
            "Responses by outcome and policy.",
            ["outcome", "policy", "model", "tenant"],
            registry=r,
        )
        self.claims_needs_review = Counter(
            "veriproxy_claims_needs_review_total",
            "Claims whose calibrated confidence fell below review_below (needs review).",
            ["policy", "model"],
            registry=r,
        )
        self.fabricated_citations = Counter(
            "veriproxy_fabricated_citations_total",
            "Citations of PMIDs that were not in the evidence.",
            ["model", "tenant"],
            registry=r,
        )
        self.quoted_citations = Counter(
            "veriproxy_quoted_citations_total",
            "Quoted citations by what the quote check found: found, misquote, other_abstract.",
            ["status", "model", "tenant"],
            registry=r,
        )
        self.risk = Histogram(
            "veriproxy_risk_score",
            "Response harm-weighted risk (0.0 = nothing unsupported, higher is worse).",
            ["model", "tenant"],
            buckets=RISK_BUCKETS,
            registry=r,
        )
        self.stage_duration = Histogram(
            "veriproxy_stage_duration_seconds",
            "Latency of one stage of a request.",
            ["stage"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.upstream_errors = Counter(
            "veriproxy_upstream_errors_total",
            "Upstream failures by kind.",
            ["kind", "model"],
            registry=r,
        )
        self.verifier_errors = Counter(
            "veriproxy_verifier_errors_total", "Verifier failures by kind.", ["kind"], registry=r
        )
        self.cache_requests = Counter(
            "veriproxy_cache_requests_total", "Cache lookups.", ["cache", "result"], registry=r
        )
        self.redis_degraded = Counter(
            "veriproxy_redis_degraded_total",
            "Operations that fell back because Redis was unreachable.",
            ["operation"],
            registry=r,
        )
        self.audit_pending = Gauge(
            "veriproxy_audit_pending_records",
            "Audit records buffered awaiting Redis.",
            multiprocess_mode="livesum",
            registry=r,
        )
        self.audit_dropped = Counter(
            "veriproxy_audit_dropped_total", "Audit records dropped (buffer full).", registry=r
        )
        self.audit_write_failures = Counter(
            "veriproxy_audit_write_failures_total",
            "Audit records a sink failed to write (the response was served; see /readyz).",
            ["sink"],
            registry=r,
        )
        self.policy_reloads = Counter(
            "veriproxy_policy_reloads_total", "Policy hot reloads.", ["result"], registry=r
        )
        self.rate_limited = Counter(
            "veriproxy_rate_limited_total",
            "Requests refused by a rate limit.",
            ["tenant", "limit"],
            registry=r,
        )
        self.unverified = Counter(
            "veriproxy_unverified_requests_total",
            "Requests answered without verification, by route and why (passthrough routes, "
            "or an answer verification could not apply to).",
            ["route", "reason"],
            registry=r,
        )
        self.judge_escalations = Counter(
            "veriproxy_judge_escalations_total",
            "Claims sent to the LLM judge, by the escalation rule that sent them.",
            ["reason"],
            registry=r,
        )
        self.judge_skipped = Counter(
            "veriproxy_judge_skipped_total",
            "Claims an escalation rule matched that were not sent to the LLM judge (token "
            "budget spent, or over max_claims); the bundled verdict stands.",
            ["reason"],
            registry=r,
        )
        self.judge_requests = Counter(
            "veriproxy_judge_requests_total",
            "Requests to the LLM judge by outcome (on any failure the bundled verdicts stand).",
            ["outcome"],
            registry=r,
        )
        self.judge_latency = Histogram(
            "veriproxy_judge_request_duration_seconds",
            "Latency of one LLM judge request, whatever its outcome.",
            buckets=JUDGE_LATENCY_BUCKETS,
            registry=r,
        )
        self.judge_tokens = Counter(
            "veriproxy_judge_tokens_total",
            "Tokens spent on the LLM judge, by kind.",
            ["kind"],
            registry=r,
        )
        self.judge_verdicts = Counter(
            "veriproxy_judge_verdicts_total",
            "Judged claims: the judge agreed with the bundled verdict, overturned it, quoted "
            "words not in the evidence (quote_rejected), called supported with a quote that "
            "does not bear on the claim (quote_irrelevant), called supported what a "
            "deterministic check failed (check_failed), or called supported with a quote that "
            "says the opposite (quote_contradicts); in the last four the bundled verdict "
            "stands.",
            ["outcome"],
            registry=r,
        )
        self.review_sampled = Counter(
            "veriproxy_review_sampled_total",
            "Answer sentences sent to the review queue, by why (action, needs_review, sampled "
            "at its verdict's rate, or its whole verified response drawn).",
            ["reason"],
            registry=r,
        )
        self.review_dropped = Counter(
            "veriproxy_review_dropped_total",
            "Sampled sentences lost before the review store took them (store unreachable or "
            "too far behind).",
            registry=r,
        )
        self.review_precision = Gauge(
            "veriproxy_review_precision",
            "Precision measured by reviewers on live traffic (weighted to all traffic), by "
            "scope, with the bounds of its 95% Wilson interval.",
            ["scope", "bound"],
            multiprocess_mode="mostrecent",
            registry=r,
        )
        self.review_reviewed = Gauge(
            "veriproxy_review_reviewed",
            "Reviewed units behind each precision estimate (responses or sentences).",
            ["scope"],
            multiprocess_mode="mostrecent",
            registry=r,
        )
        self.review_floor = Gauge(
            "veriproxy_review_precision_floor",
            "review.precision_floor: the floor the verified precision's lower bound is "
            "alerted against.",
            multiprocess_mode="mostrecent",
            registry=r,
        )
        self._zero_series()

    # --- bounded labels ------------------------------------------------------------------

    def route_label(self, path: str) -> str:
        """The route's own path, or its template (``/v1/files/{rest:path}``), or ``other``."""
        if path in self._routes:
            return path
        for pattern, template in self._templates:
            if pattern.match(path):
                return template
        return OTHER

    def model_label(self, model: str | None) -> str:
        return model if model in self._models else OTHER

    def tenant_label(self, tenant: str | None) -> str:
        if tenant is None or tenant == LOCAL_PRINCIPAL.tenant:  # keyless mode
            return ANONYMOUS
        return tenant if tenant in self._tenants else OTHER

    def _zero_series(self) -> None:
        """Create, at zero, every series whose label values are known now (module docstring)."""
        models = (*sorted(self._models), OTHER)
        tenants = (*sorted(self._tenants), ANONYMOUS, OTHER)
        for model, tenant in product(models, tenants):
            for verdict, harm in product(Verdict, HARMS):
                self.sentences.labels(verdict.value, harm, model, tenant)
            self.fabricated_citations.labels(model, tenant)
        for kind, model in product(UPSTREAM_ERROR_KINDS, models):
            self.upstream_errors.labels(kind, model)
        for tenant, limit in product(tenants, RATE_LIMITS):
            self.rate_limited.labels(tenant, limit)
        for kind in VERIFIER_ERROR_KINDS:
            self.verifier_errors.labels(kind)
        for operation in REDIS_OPERATIONS:
            self.redis_degraded.labels(operation)
        for result in RELOAD_RESULTS:
            self.policy_reloads.labels(result)
        for rule in sorted(self._judge_rules):
            self.judge_escalations.labels(rule)
        for reason in JUDGE_SKIP_REASONS:
            self.judge_skipped.labels(reason)
        for outcome in JUDGE_REQUEST_OUTCOMES:
            self.judge_requests.labels(outcome)
        for kind in JUDGE_TOKEN_KINDS:
            self.judge_tokens.labels(kind)
        for outcome in JUDGE_VERDICTS:
            self.judge_verdicts.labels(outcome)

    # --- recording -----------------------------------------------------------------------

    def observe_report(self, report: DecidedReport, model: str, tenant: str) -> None:
        """Count a final report; ``model`` and ``tenant`` must already be bounded labels."""
        fabricated = 0
        quotes: Counter_[str] = Counter_()  # (prometheus_client names its own Counter)
        for sentence in report.sentences:
            harm = str(min(5, max(1, sentence.harm)))
            self.sentences.labels(sentence.verdict.value, harm, model, tenant).inc()
            fabricated += sum(1 for c in sentence.citations if not c.valid)
            quotes.update(q.status.value for q in sentence.quotes)
        for status, count in quotes.items():
            self.quoted_citations.labels(status, model, tenant).inc(count)
        outcome = report.status.value if report.status in ReportStatus else OTHER
        self.responses.labels(outcome, report.policy or "none", model, tenant).inc()
        self.fabricated_citations.labels(model, tenant).inc(fabricated)
        self.claims_needs_review.labels(report.policy or "none", model).inc(report.needs_review)
        self.risk.labels(model, tenant).observe(report.risk)

    def observe_stages(self, timings: StageTimings) -> None:
        """Sample the response's ``retrieval``, ``verification`` and ``policy`` times (the
        evidence preparer and the session time them; the upstream stages are sampled as they
        happen)."""
        for stage, ms in timings.stages():
            self.observe_stage(stage, ms / 1000)

    def observe_stage(self, stage: str, seconds: float) -> None:
        self.stage_duration.labels(stage).observe(seconds)

    def upstream_error(self, exc: BaseException, model: str, *, mid_stream: bool = False) -> None:
        self.upstream_errors.labels(upstream_error_kind(exc, mid_stream), model).inc()

    # StateObserver (proxy.state): caches, Redis fallbacks and the audit buffer report here.

    def on_cache_lookup(self, cache: str, hit: bool) -> None:
        self.cache_requests.labels(cache, "hit" if hit else "miss").inc()

    def on_redis_degraded(self, operation: str) -> None:
        self.redis_degraded.labels(operation).inc()

    def on_audit_pending(self, count: int) -> None:
        self.audit_pending.set(count)

    def on_audit_dropped(self) -> None:
        self.audit_dropped.inc()

    def observe_review(self, scope: str, estimate: Estimate | None) -> None:
        """Set one scope's precision series (none until something of that scope is reviewed)."""
        if estimate is None:
            return
        for bound, value in (
            ("estimate", estimate.value),
            ("lower", estimate.lower),
            ("upper", estimate.upper),
        ):
            self.review_precision.labels(scope, bound).set(value)
        self.review_reviewed.labels(scope).set(estimate.n)

    # --- exposition ----------------------------------------------------------------------

    def render(self) -> bytes:
        if self._multiprocess_dir is None:
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=self._multiprocess_dir)  # type: ignore[no-untyped-call]
        return generate_latest(registry)

    def close(self) -> None:
        """Retire this worker's live gauges (multiprocess mode)."""
        if self._multiprocess_dir is not None:
            mark_process_dead(os.getpid(), self._multiprocess_dir)  # type: ignore[no-untyped-call]


def _route_table(
    routes: Iterable[str],
) -> tuple[frozenset[str], tuple[tuple[Pattern[str], str], ...]]:
    """Exact paths, and templated ones as patterns, most specific (longest literal head)
    first, so ``/v1/files/{rest:path}`` wins over the catch-all ``/v1/{rest:path}``."""
    paths = list(routes)
    templates = sorted((p for p in paths if "{" in p), key=lambda p: -len(p.split("{", 1)[0]))
    return (
        frozenset(p for p in paths if "{" not in p),
        tuple((compile_path(t)[0], t) for t in templates),
    )


def upstream_error_kind(exc: BaseException, mid_stream: bool = False) -> str:
    """One of :data:`UPSTREAM_ERROR_KINDS`: ``timeout``, ``connect``, ``http_4xx``,
    ``http_5xx`` or ``stream``."""
    if isinstance(exc, UpstreamTimeout):
        return "timeout"
    if mid_stream or isinstance(exc, UpstreamProtocolError):
        return "stream"
    if isinstance(exc, UpstreamHTTPError):
        return "http_4xx" if exc.status < 500 else "http_5xx"
    return "connect"
