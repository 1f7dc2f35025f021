"""The shipped Prometheus rules: valid, unit-tested by promtool, and the unit tests have teeth.

The mutation tests copy the rules, break one expression and require ``promtool test rules`` to
fail; a rule whose tests pass whatever it computes would be caught here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "dashboards" / "rules"
RULE_FILES = ("recording.yml", "alerts.yml")
PROMTOOL = shutil.which("promtool")

pytestmark = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool missing: run scripts/services.sh (Debian's prometheus)"
)


def _rules(name: str) -> list[dict[str, Any]]:
    doc = yaml.safe_load((RULES / name).read_text(encoding="utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


def _unit_tests() -> list[dict[str, Any]]:
    return [
        case
        for path in sorted((RULES / "tests").glob("*.yml"))
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["tests"]
    ]


def _promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run(
        [PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _run_unit_tests(rules_dir: Path) -> subprocess.CompletedProcess[str]:
    tests = sorted(str(p) for p in (rules_dir / "tests").glob("*.yml"))
    return _promtool("test", "rules", *tests, cwd=rules_dir)


def test_rule_files_pass_promtool_check() -> None:
    result = _promtool("check", "rules", *RULE_FILES, cwd=RULES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_rule_unit_tests_pass() -> None:
    result = _run_unit_tests(RULES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_recording_rule_has_an_expression_test() -> None:
    tested = " ".join(
        check["expr"] for case in _unit_tests() for check in case.get("promql_expr_test", [])
    )
    missing = [r["record"] for r in _rules("recording.yml") if r["record"] not in tested]
    assert not missing, f"recording rules without a promtool expression test: {missing}"


def test_every_alert_has_a_firing_and_a_quiet_case() -> None:
    checks = [c for case in _unit_tests() for c in case.get("alert_rule_test", [])]
    for rule in _rules("alerts.yml"):
        mine = [c for c in checks if c["alertname"] == rule["alert"]]
        assert any(c["exp_alerts"] for c in mine), f"{rule['alert']}: no case where it fires"
        assert any(not c["exp_alerts"] for c in mine), f"{rule['alert']}: no case where it is quiet"


def _copy_rules(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(RULES, target)
    return target


def _mutate(target: Path, name: str, index: int, expr: str, drop_for: bool) -> None:
    doc = yaml.safe_load((target / name).read_text(encoding="utf-8"))
    rules = [rule for group in doc["groups"] for rule in group["rules"]]
    rules[index]["expr"] = expr.format(orig=rules[index]["expr"].strip())
    if drop_for:
        rules[index].pop("for", None)
    (target / name).write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


def _run_focused(target: Path, test_file: str, alertname: str | None = None) -> int:
    """Run one unit-test file, or only its cases about ``alertname`` (keeps the suite fast)."""
    doc = yaml.safe_load((target / "tests" / test_file).read_text(encoding="utf-8"))
    if alertname is not None:
        doc["tests"] = [
            case
            for case in doc["tests"]
            if any(c["alertname"] == alertname for c in case.get("alert_rule_test", []))
        ]
    focus = target / "tests" / "focus.yml"
    focus.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return _promtool("test", "rules", str(focus), cwd=target).returncode


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_rules("recording.yml"))))
def test_unit_tests_catch_a_wrong_recording_rule(tmp_path: Path, index: int) -> None:
    target = _copy_rules(tmp_path)
    # A 2% error: every tested value is at least 0.05 and compared to 1e-4.
    _mutate(target, "recording.yml", index, "({orig}) * 1.02", drop_for=False)
    assert _run_focused(target, "recording.yml") != 0


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_rules("alerts.yml"))))
@pytest.mark.parametrize(
    ("mutation", "drop_for"),
    [("({orig}) and on () vector(0) > 1", False), ("({orig}) or on () vector(1)", True)],
    ids=["never-fires", "always-fires"],
)
def test_unit_tests_catch_a_wrong_alert(
    tmp_path: Path, index: int, mutation: str, drop_for: bool
) -> None:
    target = _copy_rules(tmp_path)
    _mutate(target, "alerts.yml", index, mutation, drop_for)
    assert _run_focused(target, "alerts.yml", _rules("alerts.yml")[index]["alert"]) != 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        # Fabricated citations must count as hallucinations.
        ("recording.yml", "contradicted|unsupported|invalid_citation", "contradicted|unsupported"),
        # Sentences that are not check-worthy must not dilute the rate.
        ("recording.yml", '{verdict!="not_checkworthy"}', ""),
        # Only chat completions reach the upstream.
        ("recording.yml", '{route="/v1/chat/completions"}', ""),
        # The volume guard, the 5% floor and the baseline factor all matter.
        ("alerts.yml", "model:veriproxy_checkworthy_sentences:rate5m > 0.05", "vector(1)"),
        ("alerts.yml", "sum by (model) (rate(veriproxy_risk_score_count[5m])) > 0.05", "vector(1)"),
        # Risk rises with risk (protocol 2.0): the alert is on high values, not low ones.
        (
            "alerts.yml",
            "model:veriproxy_risk_score:mean5m > 0.4",
            "model:veriproxy_risk_score:mean5m < 0.4",
        ),
        ("alerts.yml", "veriproxy:responses_blocked:ratio_rate5m > 0.05", "vector(1)"),
        ("alerts.yml", "> 3 * veriproxy:responses_blocked:ratio_rate6h", "> 0"),
        ("alerts.yml", 'up{job="veriproxy"}', "up"),
        # A rejection counted before the first scrape fires, but only while it is new.
        ("alerts.yml", '{result="rejected"} > 0\n', '{result="rejected"} < 0\n'),
        ("alerts.yml", 'unless veriproxy_policy_reloads_total{result="rejected"} offset 15m', ""),
        # Only failed judge requests count, and only above 20% of them.
        (
            "alerts.yml",
            'veriproxy_judge_requests_total{outcome!="ok"}',
            "veriproxy_judge_requests_total",
        ),
        ("alerts.yml", "[10m])) > 0)\n          > 0.2", "[10m])) > 0)\n          > 0"),
    ],
)
def test_unit_tests_catch_a_dropped_clause(tmp_path: Path, name: str, old: str, new: str) -> None:
    target = _copy_rules(tmp_path)
    text = (target / name).read_text(encoding="utf-8")
    assert old in text
    (target / name).write_text(text.replace(old, new), encoding="utf-8")
    assert _run_focused(target, name) != 0
