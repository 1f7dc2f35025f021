"""Which sentences enter the review queue, and the inclusion probability each records."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from policies import Action, DecidedReport, ReportStatus
from proxy.outcome import ResponseOutcome
from proxy.review.sampling import Sampler
from proxy.settings.review import VERDICTS, ReviewSettings
from tests.proxy.report_factory import report, sentence
from verifiers import Evidence, Verdict


def _outcome(answer: DecidedReport, **changes: object) -> ResponseOutcome:
    return ResponseOutcome("req-1", "clinic", "gpt-test", answer, **changes)  # type: ignore[arg-type]


def _settings(**changes: object) -> ReviewSettings:
    return replace(ReviewSettings(enabled=True), **changes)  # type: ignore[arg-type]


def test_the_settings_list_every_verdict() -> None:
    assert tuple(v.value for v in Verdict) == VERDICTS


def test_policy_actions_always_enter_and_nothing_else_at_rate_zero() -> None:
    settings = _settings(default_rate=0.0, verified_response_rate=0.0)
    found = Sampler(settings).select(
        _outcome(
            report(
                (
                    sentence(0, Verdict.SUPPORTED),
                    sentence(1, Verdict.UNSUPPORTED, action=Action.FLAG),
                    sentence(2, Verdict.CONTRADICTED, action=Action.REDACT),
                ),
                status=ReportStatus.REDACTED,
            )
        ),
        now=0.0,
    )
    assert [(x.sentence, x.reason, x.inclusion) for x in found] == [
        (1, "action", 1.0),
        (2, "action", 1.0),
    ]
    assert found[0].response_status == "redacted" and found[0].rules_fired == ()


def test_sentences_the_verifier_cannot_vouch_for_always_enter() -> None:
    settings = _settings(default_rate=0.0, verified_response_rate=0.0)
    unsure = replace(sentence(1, Verdict.SUPPORTED), needs_review=True)
    found = Sampler(settings).select(
        _outcome(report((sentence(0, Verdict.SUPPORTED), unsure))), 0.0
    )
    assert [(x.sentence, x.reason, x.inclusion, x.needs_review) for x in found] == [
        (1, "needs_review", 1.0, True)
    ]


def test_a_deciding_span_keeps_the_abstract_it_indexes_into() -> None:
    settings = _settings(default_rate=1.0)
    evidence = (
        Evidence("111", "Title", "span of the abstract", ()),
        Evidence("222", "Title", "a different text", ()),
    )
    answer = report((sentence(0, Verdict.SUPPORTED, pmids=("111", "222", "333")),))
    (found,) = Sampler(settings).select(_outcome(answer, evidence=evidence), 0.0)
    # 222's abstract does not hold the span at its offsets, and 333 was not in the evidence.
    assert [(q.pmid, q.abstract) for q in found.evidence] == [
        ("111", "span of the abstract"),
        ("222", ""),
        ("333", ""),
    ]


def test_nothing_is_sampled_when_off_for_another_tenant_or_unverified() -> None:
    flagged = report((sentence(0, Verdict.UNSUPPORTED, action=Action.FLAG),))
    assert Sampler(ReviewSettings()).select(_outcome(flagged), 0.0) == []
    assert Sampler(_settings(tenants=("other",))).select(_outcome(flagged), 0.0) == []
    unverified = report((sentence(0, Verdict.SUPPORTED),), status=ReportStatus.UNVERIFIED)
    assert Sampler(_settings(default_rate=1.0)).select(_outcome(unverified), 0.0) == []


def test_a_verified_sentence_records_both_ways_it_could_have_entered() -> None:
    settings = _settings(rates={"supported": 0.2}, verified_response_rate=0.5)
    answer = report((sentence(0, Verdict.SUPPORTED), sentence(1, Verdict.SUPPORTED)))
    draws = iter([0.1, 0.9, 0.9])  # the response is drawn whole; neither sentence on its own
    found = Sampler(settings, lambda: next(draws)).select(_outcome(answer), 0.0)
    assert [(x.reason, x.response_inclusion) for x in found] == [("response", 0.5)] * 2
    assert found[0].inclusion == pytest.approx(1 - 0.8 * 0.5)


def test_sentences_enter_at_their_verdicts_rate() -> None:
    """Over many responses the share of sentences of each verdict that entered is its recorded
    inclusion probability (binomial, 4 standard deviations)."""
    rates = {"supported": 0.1, "unsupported": 0.5}
    settings = _settings(rates=rates, verified_response_rate=0.0)
    sampler = Sampler(settings, random.Random(31).random)
    answer = report(
        (sentence(0, Verdict.SUPPORTED), sentence(1, Verdict.UNSUPPORTED)),
        status=ReportStatus.FLAGGED,
    )
    trials = 4_000
    entered = {"supported": 0, "unsupported": 0}
    for _ in range(trials):
        for found in sampler.select(_outcome(answer), 0.0):
            assert found.inclusion == rates[found.verdict]
            entered[found.verdict] += 1
    for verdict, rate in rates.items():
        sd = (trials * rate * (1 - rate)) ** 0.5
        assert abs(entered[verdict] - trials * rate) < 4 * sd
