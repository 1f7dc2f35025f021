from __future__ import annotations

import json

import pytest

from policies import Action, DecidedReport, DecidedSentence, ReportStatus, load_policy, replay
from policies.replay import ReportFormatError, decode, read_reports
from policies.store import PRESETS_DIR
from verifiers import (
    Citation,
    Claim,
    EvidenceSpan,
    NLILabel,
    SentenceAnnotation,
    Verdict,
    to_json,
)


def sentence(index: int, verdict: Verdict, harm: int, *, valid: bool = True) -> SentenceAnnotation:
    span = EvidenceSpan("123", "A trial", "Drug X lowered BP.", 0, 18, NLILabel.ENTAILMENT, 0.9)
    claim = Claim("c", 0, 5, verdict, 1.0 if verdict is Verdict.SUPPORTED else 0.0, 0.8, harm)
    return SentenceAnnotation(
        index=index,
        text=f"Sentence {index}.",
        start=0,
        end=12,
        verdict=verdict,
        confidence=0.8,
        citations=(Citation("[PMID:123]", "123", 0, 10, valid),),
        evidence=(span,),
        claims=(claim,),
        harm=harm,
        harm_reasons=("dose: '5 mg'",),
        support=0.5,
        risk=0.5,
    )


def report(
    *sentences: SentenceAnnotation, status: ReportStatus = ReportStatus.VERIFIED
) -> DecidedReport:
    """A report as a client read it (recorded with the policy's status)."""
    return DecidedReport(
        status=status,
        support=0.4,
        risk=0.6,
        faithful=False,
        counts={"supported": 1},
        sentences=tuple(DecidedSentence.of(s, Action.ANNOTATE, ()) for s in sentences),
        latency_ms={"nli": 3.5},
    )


REPORTS = [
    report(sentence(0, Verdict.SUPPORTED, 5), sentence(1, Verdict.CONTRADICTED, 5)),
    report(sentence(0, Verdict.SUPPORTED, 2, valid=False)),
    report(sentence(0, Verdict.SUPPORTED, 1)),
]


def lines() -> list[str]:
    return [json.dumps(to_json(r)) + "\n" for r in REPORTS]


def test_reports_round_trip_through_json() -> None:
    decoded = [r for _, r, _ in read_reports(lines())]
    assert decoded == REPORTS


def test_replay_counts_and_lists_blocked_sentences() -> None:
    summary = replay(load_policy(PRESETS_DIR / "clinical-strict.yaml"), ["\n", *lines()])
    assert summary.reports == 3 and summary.partial == 0
    assert summary.by_action == {"block": 1, "redact": 1, "flag": 1}  # third: risk 0.6 > 0.2
    assert summary.by_status == {"blocked": 1, "redacted": 1, "flagged": 1}
    assert summary.changed_status == 3
    [blocked] = summary.blocked
    assert (blocked.report, blocked.index, blocked.text) == (2, 1, "Sentence 1.")  # line 2
    assert "block-contradicted-high-harm" in blocked.rules_fired
    [redacted] = summary.redacted
    assert redacted.rules_fired == ("redact-fabricated-citation",)
    assert summary.sentence_actions == {"annotate": 2, "block": 1, "redact": 1}
    assert summary.rules["flag-risk-above-0.2"] == 3


def test_replay_of_an_annotate_only_policy_blocks_nothing() -> None:
    summary = replay(load_policy(PRESETS_DIR / "research.yaml"), lines())
    assert summary.by_action == {"annotate": 3}
    assert summary.blocked == () and summary.redacted == ()
    assert summary.changed_status == 0


def test_audit_log_entries_are_read_without_confidence_or_citations() -> None:
    record = {
        "request_id": "r1",
        "policy": "default",
        "status": "verified",
        "action": "annotate",
        "shadow": False,
        "support": 0.1,
        "risk": 0.9,
        "rules_fired": [],
        "error": None,
        "sentences": [
            {
                "index": 0,
                "verdict": "contradicted",
                "harm": 5,
                "action": "annotate",
                "pmids": [],
                "support": 0.0,
                "risk": 1.0,
            }
        ],
    }
    entry = json.dumps({"prev": "0" * 64, "hash": "f" * 64, "record": record})
    summary = replay(load_policy(PRESETS_DIR / "clinical-strict.yaml"), [entry])
    assert summary.partial == 1
    assert summary.by_status == {"blocked": 1}
    assert summary.blocked[0].text == ""
    [(_, decoded, partial)] = list(read_reports([entry]))
    assert partial and decoded.sentences[0].action is Action.ANNOTATE


@pytest.mark.parametrize("line", ["not json", "[1, 2]", '{"status": "weird"}'])
def test_bad_lines_name_their_number(line: str) -> None:
    with pytest.raises(ReportFormatError, match="line 2"):
        list(read_reports(["\n", line]))


def test_decode_handles_optional_and_unknown_fields() -> None:
    data = to_json(REPORTS[0])
    data["future_field"] = 1  # newer writers may add fields
    assert decode(DecidedReport, data) == REPORTS[0]


def test_an_audit_record_from_protocol_1_reads_its_risk_as_support() -> None:
    # Before 2.0 a record had no ``support`` and its ``risk`` was the supported share.
    sentence = {"index": 0, "verdict": "unsupported", "harm": 5, "action": "flag", "risk": 0.0}
    record = {"status": "flagged", "risk": 0.25, "sentences": [sentence]}
    entry = json.dumps({"prev": "0" * 64, "hash": "f" * 64, "record": record})
    [(_, decoded, _)] = list(read_reports([entry]))
    assert (decoded.support, decoded.risk) == (0.25, 0.75)
    assert (decoded.sentences[0].support, decoded.sentences[0].risk) == (0.0, 1.0)
