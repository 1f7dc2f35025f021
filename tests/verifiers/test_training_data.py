"""The NLI training data: the held-out splits never leak, and the rule-made pairs say what
their labels claim."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from verifiers.training import benchmarks, dataset
from verifiers.training.claims import contradict, negate, swap_direction
from verifiers.training.examples import CONTRADICTION, ENTAILMENT, Example
from verifiers.training.sources import healthver_rows

DATA = Path(os.environ.get("VERIPROXY_DATA", Path(__file__).parents[3] / "shared" / "data"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


@needs_data
def test_healthver_topics_and_claims_stay_on_one_side_of_the_split() -> None:
    held_out = healthver_rows(DATA, benchmark=True)
    trained = healthver_rows(DATA, benchmark=False)
    assert {r["topic_ip"] for r in held_out}.isdisjoint({r["topic_ip"] for r in trained})
    assert {r["claim"] for r in held_out}.isdisjoint({r["claim"] for r in trained})
    total = len(held_out) + len(trained)
    assert total == 1917
    assert 0.45 <= len(held_out) / total <= 0.6


@needs_data
def test_benchmarks_never_reach_the_training_pairs() -> None:
    splits = dataset.build(DATA)
    trained_claims = {e.hypothesis for e in splits.train}
    for name in ("scifact", "healthver", "checkcovid"):
        claims = {item.claim for item in benchmarks.DATASETS[name](DATA)}
        assert claims, name
        # SciFact's own train and dev share two claim texts, and a direction swap of a train
        # claim can write a dev claim; the held-out HealthVer topics share none.
        allowed = 0 if name == "healthver" else 5
        assert len(claims & trained_claims) <= allowed, name


@needs_data
def test_validation_claims_are_never_trained_on() -> None:
    splits = dataset.build(DATA)
    assert {e.group for e in splits.train}.isdisjoint({e.group for e in splits.validation})
    pairs = [(e.premise, e.hypothesis) for e in splits.train]
    assert len(pairs) == len(set(pairs))


def test_a_contradicted_claim_flipped_by_negation_becomes_supported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dataset, "NEGATION_SUPPORT_RATE", 1.0)
    monkeypatch.setattr(dataset, "EASY_NEUTRAL_RATE", 0.0)
    premise = "Statins did not lower LDL cholesterol in the treated group."
    row = Example(premise, "Statins do lower LDL cholesterol.", CONTRADICTION, "scifact", "g")
    (made,) = dataset._augment([row], random.Random(0))
    assert made == Example(
        premise, "Statins do not lower LDL cholesterol.", ENTAILMENT, "scifact+negated", "g"
    )


def test_rule_made_contradictions_change_what_the_claim_says() -> None:
    assert negate("Vitamin D is associated with lower mortality.") == (
        "Vitamin D is not associated with lower mortality."
    )
    assert negate("Masks do not reduce transmission.") == "Masks do reduce transmission."
    assert swap_direction("Exercise increases insulin sensitivity.") == (
        "Exercise decreases insulin sensitivity."
    )
    made = contradict("A 5 mg dose reduced pain.", random.Random(1))
    assert made is not None and made != "A 5 mg dose reduced pain."
    assert contradict("Aspirin and bleeding.", random.Random(1)) is None
