"""Error capture, the risk-coverage area and the reliability table on hand-counted cases."""

from __future__ import annotations

import pytest

from verifiers.training.reliability import aurc, capture_ceiling, error_capture, reliability


def test_error_capture_counts_the_errors_among_the_least_confident() -> None:
    confidence = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
    right = [False, True, False, True, True, True, True, False, True, True]
    # Three errors; the least confident 10% holds one, 20% one, 30% two.
    assert error_capture(confidence, right) == {
        10: pytest.approx(1 / 3, abs=1e-4),
        20: pytest.approx(1 / 3, abs=1e-4),
        30: pytest.approx(2 / 3, abs=1e-4),
    }
    assert capture_ceiling(right, 0.2) == pytest.approx(2 / 3, abs=1e-4)
    assert error_capture([0.5, 0.5], [True, True]) == {10: 0.0, 20: 0.0, 30: 0.0}
    with pytest.raises(ValueError):
        error_capture([0.5], [True, False])


def test_aurc_rewards_a_confidence_that_puts_errors_last() -> None:
    right = [True, True, False, False]
    good = aurc([0.9, 0.8, 0.2, 0.1], right)
    bad = aurc([0.1, 0.2, 0.8, 0.9], right)
    # Most confident first: risks 0, 0, 1/3, 2/4 -> mean 0.2083; reversed 1, 1, 2/3, 2/4.
    assert good == pytest.approx((0 + 0 + 1 / 3 + 0.5) / 4, abs=1e-4)
    assert bad == pytest.approx((1 + 1 + 2 / 3 + 0.5) / 4, abs=1e-4)


def test_reliability_bins_and_the_expected_calibration_error() -> None:
    confidence = [0.05, 0.15, 0.95, 1.0]
    right = [False, False, True, False]
    bins, ece = reliability(confidence, right)
    assert [(b.low, b.claims) for b in bins] == [(0.0, 1), (0.1, 1), (0.9, 2)]
    assert bins[-1].accuracy == 0.5 and bins[-1].mean_confidence == pytest.approx(0.975)
    assert ece == pytest.approx((0.05 + 0.15 + 2 * abs(0.975 - 0.5)) / 4, abs=1e-4)
