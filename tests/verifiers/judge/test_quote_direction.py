"""A judge's quote that says the opposite of its claim (issue 26): the direction, negation and
numbers checks between claim and quote, on real sentences."""

from __future__ import annotations

import pytest

from verifiers.judge.quote_direction import quote_contradiction


@pytest.mark.parametrize(
    "claim, quote, name",
    [
        # The quote is a near copy of the claim, its direction word the other way.
        (
            "Aspirin decreased the risk of colorectal adenoma in adults.",
            "aspirin increased the risk of colorectal adenoma",
            "direction",
        ),
        # A long quote holding a short claim: a near copy only read the other way round.
        (
            "Vitamin D supplementation increased bone mineral density.",
            "Vitamin D supplementation decreased bone mineral density in postmenopausal women "
            "over two years",
            "direction",
        ),
        (
            "Statin therapy reduced LDL cholesterol in older adults with diabetes.",
            "statin therapy increased LDL cholesterol",
            "direction",
        ),
        (
            "Adding metformin to gemcitabine improved overall survival in advanced pancreatic "
            "cancer.",
            "adding metformin to gemcitabine did not improve overall survival",
            "negation",
        ),
        (
            "Perioperative blood loss increased by 54% with ibuprofen.",
            "The perioperative blood loss increased by 45% in the ibuprofen group",
            "numbers",
        ),
    ],
)
def test_a_quote_that_says_the_opposite_is_caught(claim: str, quote: str, name: str) -> None:
    found = quote_contradiction(claim, quote)
    assert found is not None and not found.passed
    assert found.name == name
    assert "quote" in found.detail and "evidence" not in found.detail


@pytest.mark.parametrize(
    "claim, quote",
    [
        # The same direction, polarity and number: the quote carries the claim.
        (
            "Aspirin decreased the risk of colorectal adenoma in adults.",
            "aspirin decreased the risk of colorectal adenoma",
        ),
        (
            "Adding metformin to gemcitabine did not improve overall survival.",
            "adding metformin to gemcitabine did not improve overall survival",
        ),
        (
            "Perioperative blood loss increased by 45% with ibuprofen.",
            "The perioperative blood loss increased by 45% in the ibuprofen group",
        ),
        # A quantity the quote does not state says nothing about direction.
        (
            "Exercise improved insulin sensitivity in 40 obese adolescents.",
            "exercise improved insulin sensitivity",
        ),
        # A quote about something else is for the relevance check, not this one.
        (
            "Metformin doubles overall survival in patients with advanced pancreatic cancer.",
            "Metformin lowers fasting blood glucose",
        ),
    ],
)
def test_a_quote_that_agrees_or_is_beside_the_claim_is_not_a_flip(claim: str, quote: str) -> None:
    assert quote_contradiction(claim, quote) is None
