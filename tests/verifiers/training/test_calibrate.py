"""Threshold calibration of the most-relevant rule on held-out claims: best macro-F1 within the
ceiling on supported claims called contradicted."""

from __future__ import annotations

from verifiers.nli import NLIScores
from verifiers.nli.decide import Thresholds
from verifiers.training.evaluate import (
    CONTRADICTED_ID,
    SUPPORTED_ID,
    calibrate,
    decide_all,
)

NEUTRAL_ID = 1


def _window(stance: float, relevance: float = 0.95) -> NLIScores:
    return NLIScores(
        entailment=relevance * stance, neutral=1 - relevance, contradiction=relevance * (1 - stance)
    )


def test_ambivalent_supported_claims_are_not_called_contradicted() -> None:
    # Stance shares near 0.45 hold 10 supported claims (paraphrases the model half doubts) and
    # 15 refuted ones; clear cases sit at 0.9 and 0.1. Macro-F1 alone splits at 0.5 and calls
    # the 10 contradicted; within the ceiling they may not be.
    scored = (
        [[_window(0.9)]] * 40
        + [[_window(0.45)]] * 10
        + [[_window(0.45)]] * 15
        + [[_window(0.1)]] * 20
        + [[_window(0.5, relevance=0.2)]] * 20
    )
    gold = [SUPPORTED_ID] * 50 + [CONTRADICTED_ID] * 35 + [NEUTRAL_ID] * 20
    split_only = Thresholds(rule="most_relevant", relevance=0.5, support=0.5)
    assert decide_all(scored, split_only)[40:50] == [CONTRADICTED_ID] * 10
    thresholds, _ = calibrate(scored, gold, "most_relevant", false_alarm_ceiling=0.1)
    predicted = decide_all(scored, thresholds)
    alarms = sum(p == CONTRADICTED_ID for p in predicted[:50])
    assert alarms / 50 <= 0.1
    # The clearly refuted claims are still caught.
    assert predicted[65:85] == [CONTRADICTED_ID] * 20
    # The ceiling moved claims to neutral, none to supported: support is where macro-F1 put it.
    unconstrained, _ = calibrate(scored, gold, "most_relevant")
    assert unconstrained.refute is None
    assert (thresholds.relevance, thresholds.support) == (
        unconstrained.relevance,
        unconstrained.support,
    )


def test_without_ambivalence_no_refute_threshold_is_needed() -> None:
    scored = [[_window(0.9)]] * 30 + [[_window(0.1)]] * 30 + [[_window(0.5, 0.2)]] * 30
    gold = [SUPPORTED_ID] * 30 + [CONTRADICTED_ID] * 30 + [NEUTRAL_ID] * 30
    thresholds, f1 = calibrate(scored, gold, "most_relevant", false_alarm_ceiling=0.1)
    assert f1 == 1.0 and thresholds.refute is None
    assert decide_all(scored, thresholds) == gold
