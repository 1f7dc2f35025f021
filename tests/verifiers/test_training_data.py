"""The NLI training data: the held-out splits never leak, and the rule-made pairs say what
their labels claim."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from verifiers.training import benchmarks, dataset
from verifiers.training.claims import contradict, negate, swap_direction

DATA = Path(os.environ.get("VERIPROXY_DATA", Path(__file__).parents[3] / "shared" / "data"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


@needs_data
def test_benchmarks_never_reach_the_training_pairs() -> None:
    splits = dataset.build(DATA)
    # Rule-made claims (a swapped direction word, a flipped negation) can happen to write a
    # dev claim's text; the pairs read from the datasets must not.
    trained_claims = {e.hypothesis for e in splits.train if "+" not in e.source}
    for name in ("scifact", "healthver", "checkcovid"):
        claims = {item.claim for item in benchmarks.DATASETS[name](DATA)}
        assert claims, name
        # SciFact's own train and dev files share two claim texts.
        allowed = 2 if name == "scifact" else 0
        assert len(claims & trained_claims) <= allowed, name


@needs_data
def test_validation_claims_are_never_trained_on() -> None:
    splits = dataset.build(DATA)
    assert {e.group for e in splits.train}.isdisjoint({e.group for e in splits.validation})


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
