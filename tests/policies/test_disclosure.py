"""What a client may see of a decided answer: the policy layer writes its own vocabulary
(``withheld``, ``delivered_before_block``, a sentence's action and rules) into a report."""

from __future__ import annotations

import dataclasses

from policies import (
    Action,
    DecidedReport,
    ReportStatus,
    SentenceDecision,
    decide_and_apply,
    delivered_before_block,
    load_policy,
    record_decision,
    withhold,
)
from policies.store import PRESETS_DIR
from verifiers import (
    CheckResult,
    Citation,
    Claim,
    QuoteCheck,
    QuoteStatus,
    ResponseReport,
    SentenceAnnotation,
    Verdict,
)

DOSE = "Take 800 mg of ibuprofen every two hours [PMID:123]."


def _dose_sentence() -> SentenceAnnotation:
    check = CheckResult("numbers", False, "claim says '800 mg', evidence says '400 mg'", "123")
    claim = Claim(
        "Take 800 mg of ibuprofen every two hours",
        0,
        40,
        Verdict.CONTRADICTED,
        0.0,
        0.9,
        5,
        harm_reasons=("dose: '800 mg'",),
        checks=(check,),
    )
    return SentenceAnnotation(
        0,
        DOSE,
        0,
        len(DOSE),
        Verdict.CONTRADICTED,
        0.9,
        citations=(Citation("[PMID:123]", "123", 41, 51, True),),
        claims=(claim,),
        harm=5,
        harm_reasons=("dose: '800 mg'",),
        checks=(check,),
        quotes=(QuoteCheck("123", "800 mg", QuoteStatus.MISQUOTE),),
        lead_citations=("456",),
    )


def test_a_withheld_sentence_keeps_its_verdict_and_loses_its_words() -> None:
    decision = SentenceDecision(Action.REDACT, ("dose-contradicted",), "[removed]")
    original = record_decision(_dose_sentence(), decision)
    shown = withhold(original, decision)
    assert shown.withheld and not original.withheld
    assert (shown.text, shown.citations, shown.quotes) == ("[removed]", (), ())
    assert shown.lead_citations == ()  # the PMIDs its list's lead cites go with its own
    assert (shown.verdict, shown.harm, shown.action) == (Verdict.CONTRADICTED, 5, Action.REDACT)
    assert shown.rules_fired == ("dose-contradicted",)
    assert shown.harm_reasons == ("dose",) and shown.claims[0].harm_reasons == ("dose",)
    assert shown.claims[0].text == "" and shown.checks[0].detail == ""
    assert "800" not in repr(shown)


def test_the_decision_is_recorded_on_the_sentence_as_decide_and_apply_records_it() -> None:
    policy = load_policy(PRESETS_DIR / "clinical-strict.yaml")
    sentence = _dose_sentence()
    report = ResponseReport(0.0, 1.0, False, {}, (sentence,))
    applied, _ = decide_and_apply(policy, report)
    (decided,) = applied.sentences
    assert decided.action is not Action.ANNOTATE and decided.rules_fired
    decision = SentenceDecision(decided.action, decided.rules_fired, None)
    assert record_decision(sentence, decision) == decided


def test_a_block_after_delivery_reads_flagged_and_nothing_else_changes() -> None:
    blocked = DecidedReport(
        0.0,
        1.0,
        False,
        {},
        (),
        status=ReportStatus.BLOCKED,
        action=Action.BLOCK,
        rules_fired=("r",),
    )
    after = delivered_before_block(blocked)
    assert (after.status, after.delivered_before_block) == (ReportStatus.FLAGGED, True)
    assert after == dataclasses.replace(
        blocked, status=ReportStatus.FLAGGED, delivered_before_block=True
    )
    for status in ReportStatus:
        if status is not ReportStatus.BLOCKED:
            report = dataclasses.replace(blocked, status=status)
            assert delivered_before_block(report) is report
