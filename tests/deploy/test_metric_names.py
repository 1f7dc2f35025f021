"""Every series the rules and the dashboard read is one that ``proxy.metrics`` exports, with
labels and label values the proxy produces: a renamed metric, label or route breaks this test,
not a production dashboard."""

from __future__ import annotations

import re
from typing import Any

from deployfiles import DASHBOARDS, dashboard_exprs, load_yaml, rule_exprs
from prometheus_client.metrics import MetricWrapperBase

from proxy.metrics import (
    JUDGE_REQUEST_OUTCOMES,
    JUDGE_SKIP_REASONS,
    JUDGE_TOKEN_KINDS,
    JUDGE_VERDICTS,
    STAGES,
    Metrics,
)
from proxy.routes import routes
from verifiers import Verdict

SUFFIXES = {"counter": ("_total",), "gauge": ("",), "histogram": ("_bucket", "_sum", "_count")}
# A raw series name; parts of recorded names (``model:veriproxy_x:rate5m``) do not count.
METRIC = re.compile(r"(?<![:\w])(veriproxy_[a-z_]+)(?![:\w])")
SELECTOR = re.compile(r"(?<![:\w])(veriproxy_[a-z_]+)\{([^}]*)\}")
MATCHER = re.compile(r'(\w+)\s*(?:=~|!=|!~|=)\s*"')
GROUPING = re.compile(r"\b(?:by|without|ignoring|on)\s*\(([^)]*)\)")
RECORDED = re.compile(r"\b([a-z_]+:[a-z_]+:[a-z0-9_]+)\b")
VALUES = re.compile(r'\w+\s*(?:=~|!=|!~|=)\s*"([^"]*)"')
# Metrics with one label whose values are fixed in proxy.metrics.
FIXED_VALUES = {
    "veriproxy_judge_skipped_total": JUDGE_SKIP_REASONS,
    "veriproxy_judge_requests_total": JUDGE_REQUEST_OUTCOMES,
    "veriproxy_judge_tokens_total": JUDGE_TOKEN_KINDS,
    "veriproxy_judge_verdicts_total": JUDGE_VERDICTS,
}


def _catalogue() -> dict[str, frozenset[str]]:
    """Exported series name -> its label names, from the collectors ``Metrics`` creates."""
    metrics = Metrics(routes=[], models=[])
    out: dict[str, frozenset[str]] = {}
    for wrapper in vars(metrics).values():
        if isinstance(wrapper, MetricWrapperBase):
            for suffix in SUFFIXES[wrapper._type]:
                extra = {"le"} if suffix == "_bucket" else set()
                out[wrapper._name + suffix] = frozenset(wrapper._labelnames) | extra
    return out


def _exprs(dashboard: dict[str, Any]) -> list[str]:
    return rule_exprs() + dashboard_exprs(dashboard)


def test_every_metric_read_is_exported(dashboard: dict[str, Any]) -> None:
    catalogue = _catalogue()
    used = {name for expr in _exprs(dashboard) for name in METRIC.findall(expr)}
    assert len(used) >= 10, "the pattern finds no metrics"
    assert used <= set(catalogue), sorted(used - set(catalogue))


def test_labels_used_exist_on_the_metrics(dashboard: dict[str, Any]) -> None:
    catalogue = _catalogue()
    for expr in _exprs(dashboard):
        for name, matchers in SELECTOR.findall(expr):
            for label in MATCHER.findall(matchers):
                assert label in catalogue[name], f"{name} has no label {label!r}"
        known = set().union(*(catalogue[n] for n in METRIC.findall(expr)))
        # A recorded series keeps the labels its level names (model_verdict: model, verdict).
        for recorded in RECORDED.findall(expr):
            known |= set(recorded.split(":")[0].split("_")) - {"veriproxy"}
        for group in GROUPING.findall(expr):
            labels = {g.strip() for g in group.split(",") if g.strip()}
            assert labels <= known, f"{sorted(labels - known)} in {expr}"


def test_label_values_are_ones_the_proxy_emits(dashboard: dict[str, Any]) -> None:
    paths = {r.path for r in routes()}
    verdicts = {v.value for v in Verdict}
    exprs = _exprs(dashboard)
    used_routes = {v for e in exprs for v in re.findall(r'route="([^"]+)"', e)}
    assert used_routes and used_routes <= paths
    for expr in exprs:
        for values in re.findall(r'verdict(?:=~|!=|=)"([^"]+)"', expr):
            assert set(values.split("|")) <= verdicts, values
        for values in re.findall(r'stage(?:=~|=)"([^"]+)"', expr):
            assert set(values.split("|")) <= set(STAGES), values
        for name, matchers in SELECTOR.findall(expr):
            for values in VALUES.findall(matchers) if name in FIXED_VALUES else ():
                assert set(values.split("|")) <= set(FIXED_VALUES[name]), (name, values)


def test_recorded_series_that_are_read_are_defined(dashboard: dict[str, Any]) -> None:
    doc = load_yaml(DASHBOARDS / "rules" / "recording.yml")
    defined = {r["record"] for g in doc["groups"] for r in g["rules"]}
    used = {s for expr in _exprs(dashboard) for s in RECORDED.findall(expr)}
    assert used and used <= defined, sorted(used - defined)
