"""The confidence model: features of a judged claim, per-verdict heads with their isotonic map,
the JSON it ships as, and the review threshold it is fitted with."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from verifiers._types import Verdict
from verifiers.confidence import (
    FEATURES,
    ClaimSignals,
    ConfidenceModel,
    VerdictHead,
    features,
    load_confidence,
)
from verifiers.engine import Verifier
from verifiers.eval.answers import load_items
from verifiers.eval.data import data_dir
from verifiers.nli._base import NLIScores
from verifiers.training.confidence import (
    answer_claims,
    centred_isotonic,
    review_threshold,
    source_weights,
)

WINDOW = "Metformin lowered HbA1c by 1.1% compared with placebo in 120 adults with type 2 diabetes."
CLAIM = "Metformin lowers HbA1c in adults with type 2 diabetes."


def _signals(**changes: object) -> ClaimSignals:
    base: dict[str, object] = {
        "claim": CLAIM,
        "verdict": Verdict.SUPPORTED,
        "nli_confidence": 0.8,
        "scores": (NLIScores(0.8, 0.1, 0.1), NLIScores(0.2, 0.7, 0.1)),
        "windows": (WINDOW, "The trial was funded by a national grant."),
    }
    return ClaimSignals(**(base | changes))  # type: ignore[arg-type]


def test_features_read_the_windows_the_checks_and_the_claim() -> None:
    values = dict(zip(FEATURES, features(_signals()), strict=True))
    assert values["top_relevance"] == pytest.approx(0.9)
    assert values["top_stance"] == pytest.approx(0.8 / 0.9)
    assert values["agreement"] == 1.0  # the only relevant window
    assert values["overlap_top"] > values["overlap_best"] / 2 > 0
    assert values["hedged"] == 0.0 and values["has_number"] == 1.0  # "HbA1c", "type 2"
    hedged = dict(
        zip(
            FEATURES,
            features(
                _signals(
                    claim="Metformin may lower HbA1c by 2%.",
                    failed_effects=("contradicts",),
                    passed_checks=2,
                )
            ),
            strict=True,
        )
    )
    assert hedged["hedged"] == 1.0 and hedged["has_number"] == 1.0
    assert hedged["check_contradicts"] == 1.0 and hedged["check_refutes_support"] == 0.0
    assert hedged["checks_passed"] == pytest.approx(np.log1p(2))


def test_features_of_a_claim_without_windows_are_defined() -> None:
    values = features(_signals(scores=(), windows=()))
    assert len(values) == len(FEATURES) and all(np.isfinite(values))


def _head(coef: float, iso: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())) -> VerdictHead:
    n = len(FEATURES)
    weights = (coef,) + (0.0,) * (n - 1)  # reads nli_confidence only
    return VerdictHead((0.5,) + (0.0,) * (n - 1), (1.0,) * n, weights, 0.0, *iso)


def test_a_head_is_monotone_in_its_feature_and_follows_its_isotonic_map() -> None:
    head = _head(4.0)
    low, high = (
        head.raw([0.2] + [0.0] * (len(FEATURES) - 1)),
        head.raw([0.9] + [0.0] * (len(FEATURES) - 1)),
    )
    assert 0 < low < 0.5 < high < 1
    mapped = _head(4.0, ((0.1, 0.5, 0.9), (0.0, 0.3, 0.6)))
    assert mapped.calibrated(0.05) == 0.005  # flat beyond the ends, never quite 0 or 1
    assert mapped.calibrated(0.95) == 0.6
    assert mapped.calibrated(0.7) == pytest.approx(0.45)  # linear between the points


def test_the_model_round_trips_through_json_and_is_tied_to_its_model_version(
    tmp_path: Path,
) -> None:
    model = ConfidenceModel(
        "nli-v1",
        {
            Verdict.SUPPORTED: _head(3.0, ((0.2, 0.8), (0.1, 0.9))),
            Verdict.CONTRADICTED: _head(-1.0),
        },
        review_below=0.7,
        fit={"claims": 10},
    )
    model.save(tmp_path)
    loaded = load_confidence(tmp_path, "nli-v1")
    assert loaded == model
    assert load_confidence(tmp_path, "nli-v2") is None  # fitted for another model
    assert load_confidence(tmp_path / "missing", "nli-v1") is None
    signals = _signals()
    assert loaded.probability(signals) == model.probability(signals)
    # A verdict without a head keeps the model's own probability.
    assert loaded.probability(_signals(verdict=Verdict.UNSUPPORTED)) == 0.8
    # Without quoted heads, a quoted claim is read by the others.
    assert loaded.probability(_signals(quoted=True)) == loaded.probability(signals)


def test_quoted_claims_have_heads_of_their_own(tmp_path: Path) -> None:
    plain = _head(3.0, ((0.2, 0.8), (0.1, 0.5)))
    quoted = _head(3.0, ((0.2, 0.8), (0.6, 0.95)))
    model = ConfidenceModel(
        "nli-v1",
        {Verdict.SUPPORTED: plain},
        review_below=0.7,
        quoted_heads={Verdict.SUPPORTED: quoted},
    )
    model.save(tmp_path)
    loaded = load_confidence(tmp_path, "nli-v1")
    assert loaded == model
    signals = _signals()
    assert loaded.probability(signals) == plain.probability(features(signals))
    as_quoted = _signals(quoted=True)
    assert loaded.probability(as_quoted) == quoted.probability(features(as_quoted))
    assert loaded.probability(as_quoted) > loaded.probability(signals)
    # A verdict the quoted heads lack keeps the model's own probability, as for the others.
    assert loaded.probability(_signals(quoted=True, verdict=Verdict.CONTRADICTED)) == 0.8


def test_review_threshold_is_the_lowest_that_reaches_the_precision() -> None:
    s, u = Verdict.SUPPORTED, Verdict.UNSUPPORTED
    probability = [0.99, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5]
    verdicts = [s, s, s, s, u, s, s]
    right = [1, 1, 1, 0, 0, 1, 0]
    # Supported verdicts from the top: 1/1, 2/2, 3/3, 3/4, (u skipped), 4/5, 4/6.
    assert review_threshold(probability, verdicts, right, 1.0).value == 0.9
    assert review_threshold(probability, verdicts, right, 0.85).value == 0.9
    assert review_threshold(probability, verdicts, right, 0.8).value == 0.6
    found = review_threshold(probability, verdicts, right, 0.66)
    assert (found.value, found.rule, found.kept) == (0.5, "precision", 1.0)
    assert found.precision == pytest.approx(4 / 6, abs=1e-4)
    assert review_threshold([0.9], [s], [0], 0.95).value == 1.0  # never reached: all reviewed


def test_review_threshold_keeps_a_share_when_the_precision_would_mark_nearly_all() -> None:
    s = Verdict.SUPPORTED
    probability = [0.99, 0.9, 0.8, 0.7, 0.6]
    right = [1, 0, 1, 1, 0]
    # 0.95 is reached only by the top claim (a fifth): keep 60% instead, at 2/3 precision.
    found = review_threshold(probability, [s] * 5, right, 0.95, min_kept=0.6)
    assert (found.value, found.rule, found.kept) == (0.8, "coverage", 0.6)
    assert found.precision == pytest.approx(2 / 3, abs=1e-4)


def test_review_threshold_never_splits_claims_tied_at_a_probability() -> None:
    s = Verdict.SUPPORTED
    # Four claims tied at 0.8, two of them wrong: 0.8 keeps all four (precision 0.6).
    probability = [0.9, 0.8, 0.8, 0.8, 0.8]
    right = [1, 1, 1, 0, 0]
    assert review_threshold(probability, [s] * 5, right, 0.75).value == 0.9
    assert review_threshold(probability, [s] * 5, right, 0.6).value == 0.8


def test_the_centred_isotonic_map_rises_through_what_would_be_one_step() -> None:
    # Raw outputs 0..9, right on every other one: a plain isotonic fit pools the middle eight
    # into one step at 0.5 (eight claims at one confidence, which no threshold can split).
    raw = [float(i) for i in range(10)]
    right = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    xs, ys = centred_isotonic(raw, right, [1.0] * 10)
    assert all(a < b for a, b in itertools.pairwise(xs))
    assert all(a < b for a, b in itertools.pairwise(ys))
    plain = IsotonicRegression(out_of_bounds="clip").fit(raw, right).predict(raw)
    assert list(ys) == sorted(set(plain.tolist()))  # the same levels, each at its step's centre
    for level, centre in zip(ys, xs, strict=True):
        members = [x for x, p in zip(raw, plain, strict=True) if p == level]
        assert centre == pytest.approx(sum(members) / len(members))
    head = _head(1.0, (xs, ys))
    assert plain.tolist().count(0.5) == 8
    mapped = [head.calibrated(x) for x in (3.5, 5.0, 6.5)]  # inside the old step
    assert mapped == pytest.approx([0.5 * 3.5 / 4.5, 0.5 + 0.5 * 0.5 / 4.5, 0.5 + 0.5 * 2 / 4.5])


DATA = data_dir(relative_to=Path(__file__).parents[2])


@pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")
def test_quoted_training_claims_are_judged_against_their_quote_and_weigh_as_written(
    entailing_verifier: Verifier,
) -> None:
    """The quoted claims of training answers carry the sentences their quote stands in, as
    the engine reads a quoted citation; written and perturbed claims are two sources, so the
    fit weighs them the same."""
    items = load_items(DATA, "pubmedqa", held_out=False)  # BioASQ takes 20 s to read
    claims = answer_claims(items, entailing_verifier, max_answers=20, seed=13, quoted=True)
    assert {c.source for c in claims} == {"quoted", "quoted perturbed"}
    for claim in claims:
        assert claim.premise
        (record,) = claim.evidence
        assert all(w.pmid == record.pmid and w.text in record.abstract for w in claim.premise)
        assert (claim.source == "quoted") == (claim.right == {Verdict.SUPPORTED})
    plain = answer_claims(items, entailing_verifier, max_answers=20, seed=13)
    assert {c.source for c in plain} == {"answers"} and all(c.premise is None for c in plain)
    weights = source_weights([c.source for c in claims])
    written = sum(w for w, c in zip(weights, claims, strict=True) if c.source == "quoted")
    assert written == pytest.approx(weights.sum() / 2)
