from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from policies import (
    Action,
    DecidedReport,
    DecidedSentence,
    ReportStatus,
    apply_policy,
    load_policy,
)
from policies.protocol import ROOTS, build_schema, load_schema, render, schema_path
from policies.store import PRESETS_DIR
from verifiers import (
    SCHEMA_VERSION,
    CheckResult,
    Citation,
    Claim,
    Evidence,
    EvidenceRef,
    EvidenceSpan,
    NLILabel,
    ResponseReport,
    SentenceAnnotation,
    Verdict,
    to_json,
)

# What the policy decides; the verifier's own objects never carry these.
POLICY_FIELDS = {
    "response_report": (
        "status",
        "policy",
        "shadow",
        "rules_fired",
        "action",
        "delivered_before_block",
    ),
    "sentence_annotation": ("action", "rules_fired", "withheld"),
}


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_published_schema_matches_the_dataclasses(name: str) -> None:
    """Fails when a field is added to verifiers/_types.py or policies/_decided.py without
    regenerating the schema (``python -m policies.protocol``)."""
    assert schema_path(name).read_text(encoding="utf-8") == render(build_schema(ROOTS[name]))


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_schema_is_valid_and_versioned(name: str) -> None:
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert f"/{SCHEMA_VERSION}/" in schema["$id"]


def full_report() -> DecidedReport:
    """Every field filled, optional ones included."""
    span = EvidenceSpan(
        "1568684", "T", "Energy expenditure increased.", 10, 40, NLILabel.ENTAILMENT, 0.91
    )
    check = CheckResult("numbers", False, "50 mg not in the evidence", "1568684")
    claim = Claim(
        "CDCA raises it", 0, 14, Verdict.SUPPORTED, 1.0, 0.91, 3, ("drug",), (span,), (check,)
    )
    sentence = DecidedSentence(
        0, "CDCA raises it [1].", 0, 19, Verdict.SUPPORTED, 0.91,
        (Citation("[1]", "1568684", 15, 18, True),), (span,), (claim,), 3, ("drug",), 1.0, 0.0,
        (check,), action=Action.FLAG, rules_fired=("rule-a",),
    )  # fmt: skip
    return DecidedReport(
        0.5, 0.5, False, {"supported": 1}, (sentence,),
        (EvidenceRef("1568684", "T", 0.7, "hybrid"),), {"nli": 12.5}, "partial", "nli-1",
        status=ReportStatus.FLAGGED, policy="default", shadow=True, rules_fired=("r",),
        action=Action.FLAG,
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_the_wire_lists_the_fields_in_the_protocols_order(name: str) -> None:
    """A decided object's JSON puts each policy field where the protocol has it (``status``
    first, ``action`` after ``checks``, ...): key for key the published order."""
    report = full_report()
    obj = report if name == "response_report" else report.sentences[0]
    published = [key for key in load_schema(name)["properties"] if key != "type"]
    assert list(to_json(obj)) == published
    assert set(POLICY_FIELDS[name]) <= set(to_json(obj))


def test_the_verifiers_objects_carry_no_policy_words() -> None:
    report = full_report()
    verified = ResponseReport(
        **{f.name: getattr(report, f.name) for f in dataclasses.fields(ResponseReport)}
    )
    plain = SentenceAnnotation(0, "x", 0, 1, Verdict.SUPPORTED, 0.9)
    assert not set(POLICY_FIELDS["response_report"]) & set(to_json(verified))
    assert not set(POLICY_FIELDS["sentence_annotation"]) & set(to_json(plain))


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
    report = apply_policy(
        load_policy(PRESETS_DIR / "default.yaml"), verifier.verify(answer, evidence)
    )
    assert report.sentences and report.evidence
    jsonschema.validate(to_json(report), load_schema("response_report"))
    for sentence in report.sentences:
        jsonschema.validate(to_json(sentence), load_schema("sentence_annotation"))
    assert dataclasses.asdict(report)["schema_version"] == SCHEMA_VERSION
