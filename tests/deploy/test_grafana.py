"""The Grafana dashboard: importable anywhere (data source as a variable), valid PromQL, and
provisioned in the compose stack with a data source that fits its variable."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from deployfiles import DASHBOARDS, DEPLOY, dashboard_exprs, load_yaml, mount, panels_of

DATASOURCE_REF = "${datasource}"
# Grafana's own variables, given the values Grafana would substitute.
GRAFANA_VARS = {"$__rate_interval": "5m", "$model": ".*", "$tenant": ".*"}


def _datasource_variable(dashboard: dict[str, Any]) -> dict[str, Any]:
    found = [v for v in dashboard["templating"]["list"] if v["type"] == "datasource"]
    assert len(found) == 1, "exactly one data-source variable"
    assert "${" + found[0]["name"] + "}" == DATASOURCE_REF
    return found[0]


def test_datasource_is_a_prometheus_variable(dashboard: dict[str, Any]) -> None:
    assert _datasource_variable(dashboard)["query"] == "prometheus"


def test_every_query_uses_the_datasource_variable(dashboard: dict[str, Any]) -> None:
    for panel in panels_of(dashboard):
        targets = panel.get("targets", [])
        sources = [panel.get("datasource"), *(t.get("datasource") for t in targets)]
        for source in sources:
            if source is not None:
                assert source == {"type": "prometheus", "uid": DATASOURCE_REF}, panel["title"]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            assert variable["datasource"]["uid"] == DATASOURCE_REF


def test_panels_have_unique_ids_and_do_not_overlap(dashboard: dict[str, Any]) -> None:
    panels = panels_of(dashboard)
    assert len({p["id"] for p in panels}) == len(panels)
    cells: set[tuple[int, int]] = set()
    for panel in panels:
        g = panel["gridPos"]
        assert g["x"] + g["w"] <= 24, panel["title"]
        xs, ys = range(g["x"], g["x"] + g["w"]), range(g["y"], g["y"] + g["h"])
        mine = {(x, y) for x in xs for y in ys}
        assert not cells & mine, f"{panel['title']} overlaps another panel"
        cells |= mine


def test_dashboard_shows_what_operators_need(dashboard: dict[str, Any]) -> None:
    exprs = " ".join(dashboard_exprs(dashboard))
    hallucinated = 'veriproxy_sentences_total{verdict=~"contradicted|unsupported|invalid_citation"'
    checkworthy = 'veriproxy_sentences_total{verdict!="not_checkworthy"'
    for needle in (
        hallucinated,
        checkworthy,
        'outcome="blocked"',
        'outcome="flagged"',
        "veriproxy_risk_score_bucket",
        "sum by (model, verdict)",
        "sum by (tenant, verdict)",
        "sum by (stage, le) (rate(veriproxy_stage_duration_seconds_bucket",
        "veriproxy_upstream_errors_total",
    ):
        assert needle in exprs, needle


# Counters of rare events: no series means none happened, so their panels show 0, not "No data".
EVENT_COUNTERS = (
    "veriproxy_upstream_errors_total",
    "veriproxy_verifier_errors_total",
    "veriproxy_redis_degraded_total",
    "veriproxy_rate_limited_total",
    "veriproxy_policy_reloads_total",
    "veriproxy_judge_escalations_total",
    "veriproxy_judge_skipped_total",
    "veriproxy_judge_requests_total",
    "veriproxy_judge_tokens_total",
    "veriproxy_judge_verdicts_total",
)


def test_event_counter_panels_show_zero_when_empty(dashboard: dict[str, Any]) -> None:
    found = set()
    for panel in panels_of(dashboard):
        exprs = " ".join(t["expr"] for t in panel.get("targets", []))
        used = {name for name in EVENT_COUNTERS if name in exprs}
        if used:
            found |= used
            no_value = panel["fieldConfig"]["defaults"].get("noValue")
            assert no_value == "0" or "or vector(0)" in exprs, panel["title"]
    assert found == set(EVENT_COUNTERS)


def test_judge_row_shows_the_cascade(dashboard: dict[str, Any]) -> None:
    """The "LLM judge" row: escalated and skipped claims by reason, requests by outcome,
    latency p50/p99, tokens by kind and the agreement rate, every panel 0 rather than No data."""
    top = dashboard["panels"]
    rows = [i for i, p in enumerate(top) if p["type"] == "row"]
    start = next(i for i in rows if top[i]["title"] == "LLM judge")
    end = next((i for i in rows if i > start), len(top))
    panels = top[start + 1 : end]
    exprs = " ".join(t["expr"] for p in panels for t in p["targets"])
    for needle in (
        "sum by (reason) (rate(veriproxy_judge_escalations_total",
        "sum by (reason) (rate(veriproxy_judge_skipped_total",
        "sum by (outcome) (rate(veriproxy_judge_requests_total",
        "histogram_quantile(0.5, sum by (le) (rate(veriproxy_judge_request_duration_seconds",
        "histogram_quantile(0.99, sum by (le) (rate(veriproxy_judge_request_duration_seconds",
        "sum by (kind) (rate(veriproxy_judge_tokens_total",
        'sum(rate(veriproxy_judge_verdicts_total{outcome="agree"}[5m]))'
        ' / (sum(rate(veriproxy_judge_verdicts_total{outcome=~"agree|overturn"}[5m])) > 0)',
    ):
        assert needle in exprs, needle
    assert len(panels) == 5
    for panel in panels:
        assert panel["fieldConfig"]["defaults"].get("noValue") == "0", panel["title"]


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool missing")
def test_every_panel_query_is_valid_promql(dashboard: dict[str, Any], tmp_path: Path) -> None:
    rules = []
    for i, expr in enumerate(dashboard_exprs(dashboard)):
        for var, value in GRAFANA_VARS.items():
            expr = expr.replace(var, value)
        assert "$" not in expr, f"unsubstituted Grafana variable in {expr}"
        rules.append({"record": f"dashboard:query_{i}", "expr": expr})
    path = tmp_path / "dashboard_queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run(
        ["promtool", "check", "rules", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_variables_query_labels_that_exist(dashboard: dict[str, Any]) -> None:
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            match = re.fullmatch(r"label_values\((\w+), (\w+)\)", variable["query"]["query"])
            assert match, variable["name"]
            assert match.group(2) == variable["name"]


# --- provisioning in the compose stack ---------------------------------------------------


def _provisioning(kind: str) -> list[dict[str, Any]]:
    files = sorted((DEPLOY / "grafana" / "provisioning" / kind).glob("*.yml"))
    assert files, kind
    return [load_yaml(f) for f in files]


def test_provisioned_datasource_fits_the_variable(
    dashboard: dict[str, Any], compose: dict[str, Any]
) -> None:
    wanted = _datasource_variable(dashboard)["query"]
    sources = [s for doc in _provisioning("datasources") for s in doc["datasources"]]
    defaults = [s for s in sources if s.get("isDefault")]
    # The variable starts on the default source, so that one must be of the variable's type.
    assert len(defaults) == 1 and defaults[0]["type"] == wanted
    host, port = re.fullmatch(r"http://([\w-]+):(\d+)", defaults[0]["url"]).groups()  # type: ignore[union-attr]
    assert host in compose["services"]
    assert f"--web.listen-address=:{port}" in compose["services"][host]["command"]


def test_provisioned_dashboards_path_is_where_compose_mounts_them(compose: dict[str, Any]) -> None:
    grafana = compose["services"]["grafana"]
    source, target = mount(grafana, "dashboards")
    assert source == DASHBOARDS
    assert (source / "veriproxy.json").is_file()
    paths = [p["options"]["path"] for doc in _provisioning("dashboards") for p in doc["providers"]]
    assert paths == [target]
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home.startswith(target + "/") and (source / home.removeprefix(target + "/")).is_file()
    provisioning_source, provisioning_target = mount(grafana, "grafana/provisioning")
    assert provisioning_source == DEPLOY / "grafana" / "provisioning"
    assert provisioning_target == "/etc/grafana/provisioning"


def test_committed_dashboard_is_what_build_py_writes() -> None:
    spec = importlib.util.spec_from_file_location("build_dashboard", DASHBOARDS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (DASHBOARDS / "veriproxy.json").read_text(encoding="utf-8")
    fix = "python dashboards/build.py > dashboards/veriproxy.json"
    assert committed == module.render(), f"regenerate it: {fix}"
