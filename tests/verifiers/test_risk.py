from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifiers import Claim, SentenceAnnotation, Verdict
from verifiers.risk import (
    VETSCORE_P,
    claims_risk,
    claims_support,
    response_risk,
    response_support,
    sentence_risk,
    sentence_support,
    support_of,
    vetrisk,
    vetscore,
)

# Weights by hand: 5^2.426 = e^(2.426 · ln 5) = e^3.90450 ≈ 49.625; 4^2.426 ≈ 28.880;
# 2^2.426 ≈ 5.374; 1^p = 1.


def test_p_is_vetscores() -> None:
    assert VETSCORE_P == 2.426


@pytest.mark.parametrize(
    ("supports", "harms", "expected"),
    [
        ([1.0, 0.0], [5, 1], 49.625 / 50.625),  # 0.98025: the harm-5 claim is supported
        ([0.0, 1.0], [5, 1], 1 / 50.625),  # 0.01975: only the harm-1 claim is supported
        ([0.5, 1.0], [3, 3], 0.75),  # equal harm: the plain mean
        ([1.0, 0.0, 0.5], [4, 2, 5], (28.880 + 0.5 * 49.625) / (28.880 + 5.374 + 49.625)),
        ([0.0], [5], 0.0),
        ([1.0, 1.0], [1, 5], 1.0),
    ],
)
def test_vetscore_hand_computed(supports: list[float], harms: list[int], expected: float) -> None:
    assert vetscore(supports, harms) == pytest.approx(expected, abs=1e-4)


def test_other_exponents() -> None:
    assert vetscore([1.0, 0.0], [4, 1], p=1.0) == pytest.approx(0.8)
    assert vetscore([1.0, 0.0], [4, 1], p=0.0) == pytest.approx(0.5)


def test_empty_means_nothing_at_risk() -> None:
    assert vetscore([], []) == 1.0
    assert vetrisk([], []) == 0.0


@pytest.mark.parametrize(
    ("supports", "harms", "expected"),
    [
        ([1.0, 0.0], [5, 1], 1 / 50.625),  # only the harm-1 claim is unsupported: low risk
        ([0.0, 1.0], [5, 1], 49.625 / 50.625),  # the harm-5 claim is unsupported: high risk
        ([0.5, 1.0], [3, 3], 0.25),
        ([0.0], [1], 1.0),  # a lone unsupported claim, whatever its harm
    ],
)
def test_vetrisk_rises_with_unsupported_harm(
    supports: list[float], harms: list[int], expected: float
) -> None:
    assert vetrisk(supports, harms) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    ("supports", "harms", "message"),
    [
        ([1.0], [], "supports but"),
        ([1.5], [3], "outside"),
        ([float("nan")], [3], "outside"),
        ([1.0], [0], "below 1"),
    ],
)
def test_vetscore_rejects_bad_input(supports: list[float], harms: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        vetscore(supports, harms)
    with pytest.raises(ValueError, match=message):
        vetrisk(supports, harms)


@pytest.mark.parametrize(
    ("verdict", "checked", "value"),
    [
        (Verdict.SUPPORTED, None, 1.0),
        (Verdict.PARTIALLY_SUPPORTED, None, 0.5),
        (Verdict.CONTRADICTED, None, 0.0),
        (Verdict.UNSUPPORTED, None, 0.0),
        (Verdict.INVALID_CITATION, None, 0.0),
        (Verdict.UNCITED, Verdict.SUPPORTED, 1.0),
        (Verdict.UNCITED, Verdict.PARTIALLY_SUPPORTED, 0.5),
        (Verdict.UNCITED, None, 0.0),
        (Verdict.NOT_CHECKWORTHY, None, None),
    ],
)
def test_support_of(verdict: Verdict, checked: Verdict | None, value: float | None) -> None:
    assert support_of(verdict, checked) == value


def _claim(verdict: Verdict, harm: int, support: float | None = None) -> Claim:
    v = support_of(verdict) if support is None else support
    return Claim("c", 0, 1, verdict, v or 0.0, 0.9, harm)


def _sentence(verdict: Verdict, harm: int, claims: tuple[Claim, ...] = ()) -> SentenceAnnotation:
    return SentenceAnnotation(0, "s", 0, 1, verdict, 0.9, claims=claims, harm=harm)


def test_claims_and_sentences() -> None:
    claims = (
        _claim(Verdict.SUPPORTED, 5),
        _claim(Verdict.UNSUPPORTED, 1),
        _claim(Verdict.NOT_CHECKWORTHY, 5, support=0.0),  # excluded, not counted as 0
    )
    assert claims_support(claims) == pytest.approx(49.625 / 50.625, abs=1e-4)
    assert claims_risk(claims) == pytest.approx(1 / 50.625, abs=1e-4)
    partial = _sentence(Verdict.PARTIALLY_SUPPORTED, 5, claims)
    assert sentence_support(partial) == claims_support(claims)
    assert sentence_risk(partial) == claims_risk(claims)
    # Without claims the sentence is its own single claim.
    assert sentence_support(_sentence(Verdict.CONTRADICTED, 4)) == 0.0
    assert sentence_risk(_sentence(Verdict.CONTRADICTED, 4)) == 1.0
    assert sentence_support(_sentence(Verdict.NOT_CHECKWORTHY, 1)) == 1.0
    assert sentence_risk(_sentence(Verdict.NOT_CHECKWORTHY, 1)) == 0.0


def test_response_risk_pools_claims_rather_than_averaging_sentences() -> None:
    low = _sentence(Verdict.SUPPORTED, 1, tuple(_claim(Verdict.SUPPORTED, 1) for _ in range(3)))
    dose = _sentence(Verdict.CONTRADICTED, 5)
    # Mean of sentence scores would be 0.5; pooled, the harm-5 claim dominates: 3 / 52.625.
    assert response_support([low, dose]) == pytest.approx(3 / 52.625, abs=1e-4)
    assert response_risk([low, dose]) == pytest.approx(49.625 / 52.625, abs=1e-4)
    assert (response_support([]), response_risk([])) == (1.0, 0.0)


pairs = st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(1, 5)), min_size=1, max_size=12)


@given(pairs)
def test_vetscore_in_unit_range(items: list[tuple[float, int]]) -> None:
    score = vetscore([s for s, _ in items], [h for _, h in items])
    assert 0.0 <= score <= 1.0


@given(pairs, st.data())
def test_vetscore_monotonic_in_supports(
    items: list[tuple[float, int]], data: st.DataObject
) -> None:
    supports = [s for s, _ in items]
    harms = [h for _, h in items]
    i = data.draw(st.integers(0, len(items) - 1))
    raised = supports.copy()
    raised[i] = data.draw(st.floats(supports[i], 1.0))
    assert vetscore(raised, harms) >= vetscore(supports, harms) - 1e-12


@given(pairs)
def test_vetscore_extremes_and_order(items: list[tuple[float, int]]) -> None:
    harms = [h for _, h in items]
    assert vetscore([1.0] * len(harms), harms) == 1.0
    assert vetscore([0.0] * len(harms), harms) == 0.0
    supports = [s for s, _ in items]
    assert vetscore(supports[::-1], harms[::-1]) == pytest.approx(vetscore(supports, harms))


@given(pairs)
def test_support_and_risk_share_the_weight(items: list[tuple[float, int]]) -> None:
    supports = [s for s, _ in items]
    harms = [h for _, h in items]
    assert vetscore(supports, harms) + vetrisk(supports, harms) == pytest.approx(1.0)
