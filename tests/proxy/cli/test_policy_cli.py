"""``veriproxy policy``: validate names file+line+key, replay reads reports and the audit log."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from policies import Action, DecidedReport, DecidedSentence, ReportStatus
from policies.store import PRESETS_DIR
from proxy.audit import JsonlSink, build_record
from proxy.cli import policy
from proxy.outcome import ResponseOutcome
from verifiers import SentenceAnnotation, Verdict, to_json


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    policy.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["policy", *argv])
    return int(args.func(args))


def _report() -> DecidedReport:
    """A report as a client read it."""
    sentences = (
        SentenceAnnotation(0, "Aspirin helps.", 0, 14, Verdict.SUPPORTED, 0.9, harm=4),
        SentenceAnnotation(1, "Take 5 g daily.", 15, 30, Verdict.CONTRADICTED, 0.9, harm=5),
    )
    decided = tuple(DecidedSentence.of(s, Action.ANNOTATE, ()) for s in sentences)
    return DecidedReport(0.3, 0.7, False, {}, decided, status=ReportStatus.VERIFIED)


def test_validate_presets_and_a_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("validate", str(PRESETS_DIR)) == 0
    out = capsys.readouterr().out
    assert out.count(": ok (policy") == 5 and "'audit-only', shadow" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: bad\nsentence_rules:\n  - name: r\n    when: {harm: {gte: 4}}\n    acton: block\n"
    )
    assert _run("validate", str(bad), str(PRESETS_DIR / "default.yaml")) == 1
    captured = capsys.readouterr()
    assert (
        f"{bad}:5: sentence_rules[0].acton: unknown key 'acton' (did you mean 'action'?)"
        in captured.err
    )
    assert f"{bad}:3: sentence_rules[0].action: required key is missing" in captured.err
    assert "default.yaml: ok" in captured.out
    assert _run("validate", str(tmp_path / "empty-dir-does-not-exist.yaml")) == 1


def test_validate_refuses_a_version_1_risk_condition_naming_the_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(
        "name: old\nresponse_rules:\n  - name: r\n    when: {risk: {lt: 0.5}}\n    action: flag\n"
    )
    assert _run("validate", str(old)) == 1
    err = capsys.readouterr().err
    assert f"{old}:4: response_rules[0].when.risk: version 1:" in err  # the condition's line
    assert "response_rules[0].when.risk: 'risk' changed meaning in policy version 2" in err
    assert "now 'support'" in err and "set 'version: 2'" in err


def test_validate_reports_a_policy_shadowed_by_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A catch-all beside the configured default, as the proxy would load it with the presets."""
    (tmp_path / "house.yaml").write_text(
        "name: house\nmatch: {tenants: ['*']}\n"
        "sentence_rules:\n  - name: r\n    when: {harm: {gte: 4}}\n    action: flag\n"
    )
    assert _run("validate", str(tmp_path)) == 1
    captured = capsys.readouterr()
    assert "house.yaml: ok" in captured.out
    assert "error: policy 'house' is never selected by its match" in captured.err
    assert "the default policy 'default' comes before catch-all matches" in captured.err
    assert _run("validate", str(tmp_path), "--default-policy", "house") == 0
    assert "never selected" not in capsys.readouterr().err


def test_replay_on_reports_and_on_the_real_audit_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports.jsonl"
    reports.write_text(json.dumps(to_json(_report())) + "\n")
    assert _run("replay", "clinical-strict", "--reports", str(reports)) == 0
    out = capsys.readouterr().out
    assert "policy 'clinical-strict' on 1 reports" in out
    assert "responses by status: blocked=1" in out
    assert "sentences it would have blocked: 1" in out
    assert (
        "report 1 sentence 1 [block-contradicted-high-harm, flag-contradicted]: Take 5 g daily."
        in out
    )

    audit = tmp_path / "audit.jsonl"
    sink = JsonlSink(audit)
    record = build_record(ResponseOutcome("req-1", "acme", "gpt-4o", _report()), include_text=False)
    sink.write(record.to_dict())
    sink.close()
    assert (
        _run("replay", str(PRESETS_DIR / "veterinary.yaml"), "--reports", str(audit), "--json") == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["partial"] == 1
    assert summary["by_status"] == {"blocked": 1}
    assert summary["blocked"][0]["rules_fired"] == [
        "block-contradicted-high-harm",
        "flag-contradicted",
    ]


def test_replay_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("replay", "default", "--reports", str(tmp_path / "missing.jsonl")) == 2
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{}\n")
    assert _run("replay", "default", "--reports", str(broken)) == 2
    assert "line 1" in capsys.readouterr().err


def test_schema_and_presets_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("schema") == 0
    published = Path(policy.__file__).parents[2] / "policies" / "schema.json"
    assert capsys.readouterr().out == published.read_text(encoding="utf-8")
    assert _run("presets") == 0
    assert "clinical-strict: Gate every sentence" in capsys.readouterr().out
