"""The estimator: Wilson's interval, weighting back to traffic, and, on simulated labels with a
known precision, intervals that cover it at about their nominal 95%."""

from __future__ import annotations

import random

import pytest
from scipy.stats import binomtest

from proxy.review.estimate import (
    Judged,
    agreement,
    confusion,
    precision,
    proportion,
    recall,
    reviews_needed,
    verified_responses,
    wilson,
)
from proxy.review.items import Label, Labelled
from tests.proxy.review.factory import NOW, item


@pytest.mark.parametrize(("k", "n"), [(320, 400), (0, 10), (10, 10), (3, 7)])
def test_wilson_matches_scipys_interval(k: int, n: int) -> None:
    reference = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(k / n, n) == pytest.approx((reference.low, reference.high), abs=1e-9)


@pytest.mark.parametrize(
    ("p", "needed"), [(0.5, (93, 381, 2398)), (0.8, (60, 245, 1535)), (0.95, (25, 83, 469))]
)
def test_how_many_reviews_a_precision_needs(p: float, needed: tuple[int, int, int]) -> None:
    """The table in docs/observability.md: reviews for ±10, ±5 and ±2 points."""
    assert tuple(reviews_needed(p, h) for h in (0.1, 0.05, 0.02)) == needed
    for n, h in zip(needed, (0.1, 0.05, 0.02), strict=True):
        lower, upper = wilson(p, n)
        assert (upper - lower) / 2 <= h
        lower, upper = wilson(p, n - 1)
        assert (upper - lower) / 2 > h


def test_weights_bring_a_stratified_sample_back_to_traffic() -> None:
    """Forced items (weight 1) are all wrong and drawn ones (weight 10) all right: traffic is
    10 wrong for 100 right, so precision is 100/110, not the sample's 1/2."""
    rows = [Judged(item(f"f{i}"), "unsupported", 1.0) for i in range(10)]
    rows += [Judged(item(f"d{i}", inclusion=0.1), "supported", 10.0) for i in range(10)]
    found = precision(rows, "supported")
    assert found is not None
    assert found.value == pytest.approx(100 / 110)
    assert found.n == 20 and found.n_eff == pytest.approx(110**2 / (10 + 10 * 100))
    assert found.lower < found.value < found.upper


def test_recall_confusion_and_response_precision() -> None:
    rows = [
        Judged(item("r1", 0, response_inclusion=0.5, response_sentences=2), "supported", 1.0),
        Judged(item("r1", 1, response_inclusion=0.5, response_sentences=2), "supported", 1.0),
        Judged(item("r2", 0, response_inclusion=0.5, response_sentences=2), "supported", 1.0),
        Judged(item("r2", 1, response_inclusion=0.5, response_sentences=2), "contradicted", 1.0),
        Judged(item("r3", 0, response_inclusion=0.5, response_sentences=2), "supported", 1.0),
        Judged(item("x", verdict="unsupported"), "supported", 1.0),
    ]
    responses = verified_responses(rows)  # r3 is not fully labelled: left out
    assert responses is not None and (responses.value, responses.n) == (0.5, 2)
    supported_recall = recall(rows, "supported")
    assert supported_recall is not None and supported_recall.value == pytest.approx(4 / 5)
    assert confusion(rows)[("supported", "contradicted")] == (1, 1.0)
    assert proportion([]) is None


def test_agreement_and_kappa() -> None:
    def labelled(name: str, *verdicts: str) -> Labelled:
        labels = tuple(Label(1, f"r{i}", True, v, "", NOW) for i, v in enumerate(verdicts))
        return Labelled(item(name), labels)

    found = [
        labelled("a", "supported", "supported"),
        labelled("b", "unsupported", "unsupported"),
        labelled("c", "supported", "unsupported"),
        labelled("d", "supported"),
    ]
    result = agreement(found)
    assert (result.items, result.agreed) == (3, 2)
    # p_o = 2/3; chance = (2/3)(1/3) + (1/3)(2/3) = 4/9; kappa = (2/3 - 4/9) / (5/9) = 0.4
    assert result.kappa == pytest.approx(0.4)


@pytest.mark.parametrize("true_precision", [0.6, 0.8, 0.95])
def test_intervals_cover_a_known_precision_at_about_95_percent(true_precision: float) -> None:
    """Traffic of supported sentences, right with a known probability; a stratified sample
    (those a rule forced in at 1.0, the rest drawn at 5%), labelled truthfully. Over many such
    samples the 95% interval holds the true precision about 95% of the time."""
    rng = random.Random(int(true_precision * 1000))
    runs, covered = 400, 0
    for _ in range(runs):
        rows = []
        for i in range(3_000):
            right = rng.random() < true_precision
            forced = rng.random() < 0.02
            inclusion = 1.0 if forced else 0.05
            if forced or rng.random() < inclusion:
                truth = "supported" if right else "unsupported"
                rows.append(Judged(item(f"s{i}", inclusion=inclusion), truth, 1 / inclusion))
        found = precision(rows, "supported")
        assert found is not None
        covered += found.lower <= true_precision <= found.upper
    assert 0.91 <= covered / runs <= 0.985
