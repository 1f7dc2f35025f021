from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from verifiers import (
    SCHEMA_VERSION,
    Action,
    CheckResult,
    Citation,
    Claim,
    Evidence,
    EvidenceRef,
    EvidenceSpan,
    NLILabel,
    ReportStatus,
    ResponseReport,
    SentenceAnnotation,
    Verdict,
    to_json,
)
from verifiers.schema import ROOTS, build_schema, load_schema, render, schema_path


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_published_schema_matches_the_dataclasses(name: str) -> None:
    """Fails when a field is added to verifiers/_types.py without regenerating the schema
    (``python -m verifiers.schema``)."""
    assert schema_path(name).read_text(encoding="utf-8") == render(build_schema(ROOTS[name]))


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_schema_is_valid_and_versioned(name: str) -> None:
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert f"/{SCHEMA_VERSION}/" in schema["$id"]


def full_report() -> ResponseReport:
    """Every field filled, optional ones included."""
    span = EvidenceSpan(
        "1568684", "T", "Energy expenditure increased.", 10, 40, NLILabel.ENTAILMENT, 0.91
    )
    check = CheckResult("numbers", False, "50 mg not in the evidence", "1568684")
    claim = Claim(
        "CDCA raises it", 0, 14, Verdict.SUPPORTED, 1.0, 0.91, 3, ("drug",), (span,), (check,)
    )
    sentence = SentenceAnnotation(
        0, "CDCA raises it [1].", 0, 19, Verdict.SUPPORTED, 0.91,
        (Citation("[1]", "1568684", 15, 18, True),), (span,), (claim,), 3, ("drug",), 1.0, 0.0,
        (check,), Action.FLAG, ("rule-a",),
    )  # fmt: skip
    return ResponseReport(
        ReportStatus.FLAGGED, 0.5, 0.5, False, {"supported": 1}, (sentence,),
        (EvidenceRef("1568684", "T", 0.7, "hybrid"),), "default", True, ("r",), Action.FLAG,
        {"nli": 12.5}, "partial", "nli-1",
    )  # fmt: skip


def test_reports_validate_and_drift_is_caught() -> None:
    report = full_report()
    jsonschema.validate(to_json(report), load_schema("response_report"))
    jsonschema.validate(to_json(report.sentences[0]), load_schema("sentence_annotation"))
    data = to_json(report)
    data["sentences"][0]["verdict"] = "probably"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, load_schema("response_report"))
    data = to_json(report)
    data["unexpected"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, load_schema("response_report"))


def test_engine_reports_validate(
    tmp_path: Path, tiny_model: Callable[..., Path], evidence: list[Evidence]
) -> None:
    from verifiers.engine import Verifier
    from verifiers.nli.hf_backend import HFNLI
    from verifiers.windows import WindowSelector

    model = tiny_model(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"}, "neutral")
    verifier = Verifier(HFNLI(model, threads=1), selector=WindowSelector())
    answer = (
        "Hi! ALDH1 predicts poor prognosis [PMID:45638119]. The dose was 50 mg [9]. "
        'They wrote "whole-body energy expenditure was reduced" in 2019.'
    )
    report = verifier.verify(answer, evidence)
    assert report.sentences and report.evidence
    jsonschema.validate(to_json(report), load_schema("response_report"))
    for sentence in report.sentences:
        jsonschema.validate(to_json(sentence), load_schema("sentence_annotation"))
    assert dataclasses.asdict(report)["schema_version"] == SCHEMA_VERSION
