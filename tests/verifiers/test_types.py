"""The one way to mark a report unverified (engine, session and routes all use it)."""

from __future__ import annotations

from verifiers import ResponseReport, SentenceAnnotation, Verdict


def test_an_unverified_report_keeps_its_sentences_but_is_never_verified_or_faithful() -> None:
    sentence = SentenceAnnotation(0, "Aspirin helps.", 0, 14, Verdict.SUPPORTED, 0.9)
    report = ResponseReport(1.0, 0.0, True, {"supported": 1}, (sentence,))
    unverified = report.as_unverified("verifier error (TimeoutError)")
    assert report.error is None
    assert unverified.faithful is False
    assert unverified.error == "verifier error (TimeoutError)"
    assert unverified.sentences == report.sentences
    assert (unverified.support, unverified.risk) == (1.0, 0.0)
