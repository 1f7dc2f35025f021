"""Build the Grafana dashboard: ``python dashboards/build.py > dashboards/veriproxy.json``.

The dashboard is written as code so every panel shares one definition of each query (the
hallucination rate, the filters) and the layout is computed, not hand-placed. The JSON is what
ships and what Grafana imports; ``tests/deploy`` checks it equals this script's output.
"""

from __future__ import annotations

import json
import sys
from typing import Any

Json = dict[str, Any]

UID = "veriproxy-overview"
DATASOURCE: Json = {"type": "prometheus", "uid": "${datasource}"}
WINDOW = "$__rate_interval"
BY_MODEL_TENANT = 'model=~"$model", tenant=~"$tenant"'
BY_MODEL = 'model=~"$model"'
BY_TENANT = 'tenant=~"$tenant"'
HALLUCINATED = 'verdict=~"contradicted|unsupported|invalid_citation"'
CHECKWORTHY = 'verdict!="not_checkworthy"'
CHAT_ROUTE = 'route="/v1/chat/completions"'
GRID_WIDTH = 24


def rate(metric: str, *matchers: str) -> str:
    return f"rate({metric}{{{', '.join(matchers)}}}[{WINDOW}])"


def summed(by: str, metric: str, *matchers: str) -> str:
    return f"sum by ({by}) ({rate(metric, *matchers)})"


def ratio(part: str, whole: str, by: str = "") -> str:
    """sum(part) / sum(whole), both grouped ``by`` the same labels."""
    head = f"sum by ({by}) " if by else "sum"
    return f"{head}({part}) / {head}({whole})"


def share(metric: str, label: str, by: str, *matchers: str) -> str:
    """Each ``label`` value's share of the total within each ``by`` group."""
    series = rate(metric, *matchers)
    inner = f"{by}, {label}" if by else label
    whole = f"sum by ({by}) ({series})" if by else f"sum({series})"
    return f"sum by ({inner}) ({series}) / ignoring ({label}) group_left {whole}"


def quantile(q: float, metric: str, by: str, *matchers: str) -> str:
    labels = f"{by}, le" if by else "le"
    return f"histogram_quantile({q}, sum by ({labels}) ({rate(metric + '_bucket', *matchers)}))"


def hallucination_rate(by: str = "") -> str:
    return ratio(
        rate("veriproxy_sentences_total", HALLUCINATED, BY_MODEL_TENANT),
        rate("veriproxy_sentences_total", CHECKWORTHY, BY_MODEL_TENANT),
        by,
    )


def outcome_rate(outcome: str) -> str:
    return ratio(
        rate("veriproxy_responses_total", f'outcome="{outcome}"', BY_MODEL_TENANT),
        rate("veriproxy_responses_total", BY_MODEL_TENANT),
    )


def steps(*pairs: tuple[str, float | None]) -> Json:
    return {"mode": "absolute", "steps": [{"color": c, "value": v} for c, v in pairs]}


class Layout:
    """Places panels left to right in rows of 24 grid units, top to bottom."""

    def __init__(self) -> None:
        self.panels: list[Json] = []
        self._x = 0
        self._y = 0
        self._row_height = 0

    def row(self, title: str) -> None:
        self._newline()
        self._add({"type": "row", "title": title, "collapsed": False, "panels": []}, 24, 1)
        self._newline()

    def add(self, panel: Json, width: int, height: int) -> None:
        if self._x + width > GRID_WIDTH:
            self._newline()
        self._add(panel, width, height)

    def _add(self, panel: Json, width: int, height: int) -> None:
        panel["id"] = len(self.panels) + 1
        panel["gridPos"] = {"h": height, "w": width, "x": self._x, "y": self._y}
        self.panels.append(panel)
        self._x += width
        self._row_height = max(self._row_height, height)

    def _newline(self) -> None:
        self._y += self._row_height
        self._x = 0
        self._row_height = 0


def _targets(queries: list[tuple[str, str]]) -> list[Json]:
    return [
        {
            "datasource": DATASOURCE,
            "expr": expr,
            "legendFormat": legend,
            "refId": chr(ord("A") + i),
            "range": True,
        }
        for i, (expr, legend) in enumerate(queries)
    ]


def _panel(kind: str, title: str, description: str, queries: list[tuple[str, str]]) -> Json:
    return {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "targets": _targets(queries),
        "fieldConfig": {"defaults": {}, "overrides": []},
        "options": {},
    }


def stat(title: str, description: str, expr: str, unit: str, thresholds: Json | None) -> Json:
    panel = _panel("stat", title, description, [(expr, title)])
    defaults = panel["fieldConfig"]["defaults"]
    defaults["unit"] = unit
    if unit == "none":
        defaults["decimals"] = 2
    if thresholds is not None:
        defaults["thresholds"] = thresholds
        defaults["color"] = {"mode": "thresholds"}
    panel["options"] = {
        "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
        "colorMode": "background",
        "graphMode": "area",
        "textMode": "value",
    }
    return panel


def timeseries(
    title: str,
    description: str,
    queries: list[tuple[str, str]],
    unit: str = "short",
    *,
    stacked: bool = False,
    bars: bool = False,
) -> Json:
    panel = _panel("timeseries", title, description, queries)
    panel["fieldConfig"]["defaults"] = {
        "unit": unit,
        "custom": {
            "drawStyle": "bars" if bars else "line",
            "fillOpacity": 60 if stacked else 10,
            "lineWidth": 1,
            "showPoints": "never",
            "stacking": {"mode": "normal" if stacked else "none", "group": "A"},
        },
    }
    panel["options"] = {
        "legend": {"displayMode": "table", "placement": "right", "calcs": ["mean", "max"]},
        "tooltip": {"mode": "multi", "sort": "desc"},
    }
    return panel


def zero_when_empty(panel: Json) -> Json:
    """Show 0, not "No data", when the query returns nothing: for counters of rare events,
    where no series (a replica that has not exported it yet, a filter matching none) means none
    happened."""
    panel["fieldConfig"]["defaults"]["noValue"] = "0"
    return panel


def heatmap(title: str, description: str, expr: str) -> Json:
    panel = _panel("heatmap", title, description, [(expr, "{{le}}")])
    panel["targets"][0]["format"] = "heatmap"
    panel["options"] = {
        "calculate": False,
        "yAxis": {"axisPlacement": "left", "unit": "none"},
        "cellGap": 1,
        "color": {"mode": "scheme", "scheme": "RdYlGn", "reverse": True},
        "rowsFrame": {"layout": "auto"},
        "tooltip": {"show": True, "yHistogram": True},
    }
    return panel


def overview(grid: Layout) -> None:
    grid.row("Overview")
    grid.add(
        stat(
            "Hallucination rate",
            "Contradicted + unsupported + fabricated-citation sentences over check-worthy ones.",
            hallucination_rate(),
            "percentunit",
            steps(("green", None), ("orange", 0.1), ("red", 0.2)),
        ),
        4,
        4,
    )
    grid.add(
        stat(
            "Needs review",
            "Share of responses with a sentence whose verdict the verifier cannot vouch for "
            "(calibrated confidence below review_below): a judge or a person must look.",
            outcome_rate("needs_review"),
            "percentunit",
            steps(("green", None), ("orange", 0.2), ("red", 0.4)),
        ),
        4,
        4,
    )
    grid.add(
        stat(
            "Blocked responses",
            "Share of responses blocked by policy.",
            outcome_rate("blocked"),
            "percentunit",
            steps(("green", None), ("orange", 0.05), ("red", 0.15)),
        ),
        4,
        4,
    )
    grid.add(
        stat(
            "Flagged responses",
            "Share of responses flagged by policy.",
            outcome_rate("flagged"),
            "percentunit",
            steps(("green", None), ("orange", 0.2), ("red", 0.4)),
        ),
        4,
        4,
    )
    grid.add(
        stat(
            "Mean risk score",
            "Harm-weighted risk of responses: 0.0 = nothing unsupported, 1.0 = all harm potential "
            "unsupported or contradicted.",
            ratio(
                rate("veriproxy_risk_score_sum", BY_MODEL_TENANT),
                rate("veriproxy_risk_score_count", BY_MODEL_TENANT),
            ),
            "none",
            steps(("green", None), ("orange", 0.2), ("red", 0.4)),
        ),
        4,
        4,
    )
    grid.add(
        stat(
            "Requests / s",
            "All routes, all replicas.",
            f"sum({rate('veriproxy_requests_total', BY_MODEL_TENANT)})",
            "reqps",
            None,
        ),
        4,
        4,
    )
    grid.add(
        zero_when_empty(
            stat(
                "Upstream error rate",
                "Upstream failures per chat-completion request.",
                ratio(
                    rate("veriproxy_upstream_errors_total", BY_MODEL),
                    rate("veriproxy_requests_total", CHAT_ROUTE, BY_MODEL_TENANT),
                ),
                "percentunit",
                steps(("green", None), ("orange", 0.01), ("red", 0.05)),
            )
        ),
        4,
        4,
    )


def quality(grid: Layout) -> None:
    grid.row("Verification quality")
    for label in ("model", "tenant"):
        grid.add(
            timeseries(
                f"Hallucination rate by {label}",
                f"Hallucinated over check-worthy sentences, per {label}.",
                [(hallucination_rate(label), f"{{{{{label}}}}}")],
                "percentunit",
            ),
            12,
            8,
        )
    for label in ("model", "tenant"):
        grid.add(
            timeseries(
                f"Verdict mix by {label}",
                f"Share of each verdict among a {label}'s verified sentences.",
                [
                    (
                        share("veriproxy_sentences_total", "verdict", label, BY_MODEL_TENANT),
                        f"{{{{{label}}}}} {{{{verdict}}}}",
                    )
                ],
                "percentunit",
            ),
            12,
            8,
        )
    unsupported = 'verdict=~"contradicted|unsupported"'
    grid.add(
        timeseries(
            "Unsupported or contradicted sentences by harm",
            "Sentences/s; harm 5 = dose, contraindication, interaction, direct patient harm.",
            [
                (
                    summed("harm", "veriproxy_sentences_total", unsupported, BY_MODEL_TENANT),
                    "harm {{harm}}",
                )
            ],
            stacked=True,
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Fabricated citations / s",
            "Citations to PMIDs that were not in the evidence.",
            [
                (
                    summed("model", "veriproxy_fabricated_citations_total", BY_MODEL_TENANT),
                    "{{model}}",
                )
            ],
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Quoted citations / s by what the quote check found",
            "found: the quoted words are in the abstract cited (the sentence was judged against "
            "them); misquote: in no abstract given; other_abstract: in another one.",
            [
                (
                    summed("status", "veriproxy_quoted_citations_total", BY_MODEL_TENANT),
                    "{{status}}",
                )
            ],
            stacked=True,
        ),
        12,
        8,
    )


def measured_precision(scope: str, bound: str) -> str:
    """One of the review queue's estimates; ``max`` across workers and replicas, which read the
    same store."""
    return f'max(veriproxy_review_precision{{scope="{scope}", bound="{bound}"}})'


def measured_accuracy(grid: Layout) -> None:
    """Reviewers' labels on sampled live traffic (proxy/review): how often the verdicts above
    are right. Over all models and tenants (``veriproxy review report --by`` splits them)."""
    grid.row("Measured accuracy")
    floor = "max(veriproxy_review_precision_floor)"
    scopes = (
        ("verified_responses", "Verified responses"),
        ("supported_sentences", "Supported sentences"),
    )
    for scope, name in scopes:
        grid.add(
            stat(
                f"{name}: measured precision",
                f"Share that reviewers confirmed, weighted back to all traffic ({scope}).",
                measured_precision(scope, "estimate"),
                "percentunit",
                steps(("red", None), ("orange", 0.8), ("green", 0.9)),
            ),
            4,
            4,
        )
        grid.add(
            stat(
                f"{name}: 95% lower bound",
                "Lower bound of the 95% Wilson interval; the alert compares it with "
                "review.precision_floor.",
                measured_precision(scope, "lower"),
                "percentunit",
                steps(("red", None), ("orange", 0.8), ("green", 0.9)),
            ),
            4,
            4,
        )
    grid.add(
        stat(
            "Reviewed",
            "Verified responses reviewed whole (every sentence labelled).",
            'max(veriproxy_review_reviewed{scope="verified_responses"})',
            "short",
            None,
        ),
        4,
        4,
    )
    grid.add(stat("Precision floor", "review.precision_floor.", floor, "percentunit", None), 4, 4)
    grid.add(
        timeseries(
            "Measured precision with its 95% interval",
            "Estimate and Wilson bounds per scope, recomputed after every label.",
            [
                (
                    f'max by (bound) (veriproxy_review_precision{{scope="{scope}"}})',
                    f"{name} {{{{bound}}}}",
                )
                for scope, name in scopes
            ]
            + [(floor, "floor")],
            "percentunit",
        ),
        12,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Sentences sent to review / s",
                "By why: a policy acted, the verifier asked (needs_review), drawn at its "
                "verdict's rate, or its whole verified response drawn.",
                [(summed("reason", "veriproxy_review_sampled_total"), "{{reason}}")],
                stacked=True,
            )
        ),
        12,
        8,
    )


def outcomes(grid: Layout) -> None:
    grid.row("Policy outcomes")
    grid.add(
        timeseries(
            "Response outcomes",
            "Share of responses verified, flagged, redacted, blocked or left unverified.",
            [(share("veriproxy_responses_total", "outcome", "", BY_MODEL_TENANT), "{{outcome}}")],
            "percentunit",
            stacked=True,
        ),
        12,
        8,
    )
    acted = 'outcome=~"blocked|flagged|redacted"'
    grid.add(
        timeseries(
            "Blocked, flagged and redacted by policy",
            "Responses per second that each policy acted on.",
            [
                (
                    summed("policy, outcome", "veriproxy_responses_total", acted, BY_MODEL_TENANT),
                    "{{policy}} {{outcome}}",
                )
            ],
            "reqps",
        ),
        12,
        8,
    )
    grid.add(
        heatmap(
            "Risk score distribution",
            "Responses per risk-score bucket (0.1 wide); 0.0 = nothing at risk.",
            f"sum by (le) (increase(veriproxy_risk_score_bucket{{{BY_MODEL_TENANT}}}[{WINDOW}]))",
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Risk score quantiles by model",
            "Median and 90th percentile of response risk scores.",
            [
                (
                    quantile(q, "veriproxy_risk_score", "model", BY_MODEL_TENANT),
                    f"p{p} {{{{model}}}}",
                )
                for q, p in ((0.5, 50), (0.9, 90))
            ],
            "none",
        ),
        12,
        8,
    )


def latency(grid: Layout) -> None:
    grid.row("Latency")
    grid.add(
        timeseries(
            "Latency per stage (p50, p95)",
            "Retrieval, upstream time to first token, upstream total, verification, policy. "
            "Not split by model.",
            [
                (quantile(q, "veriproxy_stage_duration_seconds", "stage"), f"p{p} {{{{stage}}}}")
                for q, p in ((0.5, 50), (0.95, 95))
            ],
            "s",
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Request latency by route (p50, p95, p99)",
            "Whole-request latency, streams included.",
            [
                (
                    quantile(q, "veriproxy_request_duration_seconds", "route", BY_MODEL),
                    f"p{p} {{{{route}}}}",
                )
                for q, p in ((0.5, 50), (0.95, 95), (0.99, 99))
            ],
            "s",
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Requests in flight",
            "Open requests (streams included) per route, all replicas.",
            [("sum by (route) (veriproxy_inflight_requests)", "{{route}}")],
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Requests by status",
            "Requests per second by HTTP status.",
            [
                (
                    summed("status", "veriproxy_requests_total", BY_MODEL_TENANT),
                    "{{status}}",
                )
            ],
            "reqps",
            stacked=True,
        ),
        12,
        8,
    )


def dependencies(grid: Layout) -> None:
    grid.row("Upstream and dependencies")
    grid.add(
        zero_when_empty(
            timeseries(
                "Upstream errors",
                "Upstream failures per second by kind and model.",
                [
                    (
                        summed("kind, model", "veriproxy_upstream_errors_total", BY_MODEL),
                        "{{model}} {{kind}}",
                    )
                ],
                "reqps",
                stacked=True,
                bars=True,
            )
        ),
        12,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Verifier errors",
                "Verifier timeouts and exceptions per second (the policy fails open or closed).",
                [(summed("kind", "veriproxy_verifier_errors_total"), "{{kind}}")],
                "reqps",
                stacked=True,
                bars=True,
            )
        ),
        12,
        8,
    )
    grid.add(
        timeseries(
            "Cache hit ratio",
            "Retrieval and LLM judge cache hits over lookups.",
            [
                (
                    ratio(
                        rate("veriproxy_cache_requests_total", 'result="hit"'),
                        rate("veriproxy_cache_requests_total"),
                        "cache",
                    ),
                    "{{cache}}",
                )
            ],
            "percentunit",
        ),
        8,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Redis fallbacks",
                "Operations that fell back to local state because Redis was unreachable.",
                [(summed("operation", "veriproxy_redis_degraded_total"), "{{operation}}")],
                "ops",
            )
        ),
        8,
        8,
    )
    grid.add(
        timeseries(
            "Audit buffer",
            "Audit records waiting for Redis, and records dropped because the buffer was full.",
            [
                ("sum(veriproxy_audit_pending_records)", "pending"),
                (f"sum(increase(veriproxy_audit_dropped_total[{WINDOW}]))", "dropped"),
            ],
        ),
        8,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Rate-limited requests",
                "429s per second by tenant and limit.",
                [
                    (
                        summed("tenant, limit", "veriproxy_rate_limited_total", BY_TENANT),
                        "{{tenant}} {{limit}}",
                    )
                ],
                "reqps",
            )
        ),
        12,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Rejected policy reloads",
                "Policy files rejected by a hot reload (the previous policy stays in force).",
                [
                    (
                        f"sum by (result) (increase(veriproxy_policy_reloads_total[{WINDOW}]))",
                        "{{result}}",
                    )
                ],
                bars=True,
            )
        ),
        12,
        8,
    )


def judge(grid: Layout) -> None:
    """The LLM judge cascade: claims escalated from the bundled NLI model, judge requests,
    their latency and tokens, and how often the judge agrees. Not split by model or tenant."""
    grid.row("LLM judge")
    grid.add(
        zero_when_empty(
            timeseries(
                "Judge escalations / s",
                "Claims sent to the judge, by the escalation rule that matched them; and claims "
                "a rule matched but that were not sent (token budget spent, or over max_claims: "
                "the bundled verdict stands).",
                [
                    (summed("reason", "veriproxy_judge_escalations_total"), "escalated {{reason}}"),
                    (summed("reason", "veriproxy_judge_skipped_total"), "skipped {{reason}}"),
                ],
                "ops",
            )
        ),
        12,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Judge requests by outcome",
                "Judge requests per second (one per escalated response): ok, timeout, "
                "unreachable, malformed reply. On a failure the bundled verdicts stand.",
                [(summed("outcome", "veriproxy_judge_requests_total"), "{{outcome}}")],
                "reqps",
                stacked=True,
                bars=True,
            )
        ),
        12,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Judge latency (p50, p99)",
                "Latency of one judge request, whatever its outcome.",
                [
                    (quantile(q, "veriproxy_judge_request_duration_seconds", ""), f"p{p}")
                    for q, p in ((0.5, 50), (0.99, 99))
                ],
                "s",
            )
        ),
        8,
        8,
    )
    grid.add(
        zero_when_empty(
            timeseries(
                "Judge tokens / s",
                "Prompt and completion tokens spent on the judge.",
                [(summed("kind", "veriproxy_judge_tokens_total"), "{{kind}}")],
                stacked=True,
            )
        ),
        8,
        8,
    )
    verdicts = "veriproxy_judge_verdicts_total"
    grid.add(
        zero_when_empty(
            timeseries(
                "Judge agreement rate",
                "Judged claims where the judge agreed with the bundled verdict, over those it "
                "agreed with or overturned (5m). Claims whose quote was not in the evidence "
                "are left out.",
                [
                    (
                        f'sum(rate({verdicts}{{outcome="agree"}}[5m]))'
                        f' / (sum(rate({verdicts}{{outcome=~"agree|overturn"}}[5m])) > 0)',
                        "agreement",
                    )
                ],
                "percentunit",
            )
        ),
        8,
        8,
    )


def label_variable(label: str) -> Json:
    query = f"label_values(veriproxy_sentences_total, {label})"
    return {
        "name": label,
        "label": label.capitalize(),
        "type": "query",
        "datasource": DATASOURCE,
        "query": {"query": query, "refId": f"{label}-values"},
        "definition": query,
        "refresh": 2,
        "includeAll": True,
        "multi": True,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "sort": 1,
        "hide": 0,
    }


def dashboard() -> Json:
    grid = Layout()
    for section in (overview, quality, measured_accuracy, outcomes, latency, dependencies, judge):
        section(grid)
    return {
        "uid": UID,
        "title": "veriproxy",
        "description": "Hallucination rate, policy outcomes, risk, latency, dependencies and "
        "the LLM judge.",
        "tags": ["veriproxy", "llm", "verification"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "annotations": {
            "list": [
                {
                    "builtIn": 1,
                    "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                    "enable": True,
                    "hide": True,
                    "iconColor": "rgba(0, 211, 255, 1)",
                    "name": "Annotations & Alerts",
                    "type": "dashboard",
                }
            ]
        },
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Data source",
                    "type": "datasource",
                    "query": "prometheus",
                    "refresh": 1,
                    "regex": "",
                    "hide": 0,
                    "current": {},
                },
                label_variable("model"),
                label_variable("tenant"),
            ]
        },
        "panels": grid.panels,
        "links": [],
    }


def render() -> str:
    return json.dumps(dashboard(), indent=2) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
