"""A contradiction the small model reads into two negated sentences that say the same thing is
set aside: with the negation words taken out of both, the pair is read again, and a pair that no
longer contradicts leaves the claim ``unsupported`` with a failed ``shared_negation`` result. A
negation flip (one side negated) is never touched. Abstract sentences: PubMedQA (MIT)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verifiers.fixed_nli import ScriptedNLI
from verifiers import Verdict
from verifiers.checks.negation import is_negated, negated_alike, without_negation
from verifiers.config import verifier_config
from verifiers.engine import SHARED_NEGATION, Verifier
from verifiers.nli._base import NLIPair
from verifiers.windows import make_evidence

PMID = "27394685"
EVIDENCE = (
    "No significant correlation was found between humeral and glenoid bone defects by observer "
    "1 (r\xa0=\xa00.23, p\xa0=\xa00.22) or observer 2 (r\xa0=\xa00.05, p\xa0=\xa00.78)."
)
NEGATED = f"Humeral and glenoid bone defects were not correlated [PMID:{PMID}]."
FLIPPED = f"Humeral and glenoid bone defects were correlated [PMID:{PMID}]."
BUNDLED = Path(__file__).parents[2] / "verifiers" / "models" / "nli" / "nli_config.json"


def reads_negation_as_contradiction(stubborn: bool = False) -> ScriptedNLI:
    """The artifact the rule answers: contradicts any pair with a negation word on either side;
    entails one without (or, with ``stubborn``, contradicts it too)."""
    return ScriptedNLI(
        lambda pair: stubborn or is_negated(pair.premise) or is_negated(pair.hypothesis),
        "reads-negation-as-contradiction",
    )


def verify(answer: str, nli: ScriptedNLI) -> tuple[Verdict, list[str]]:
    evidence = [make_evidence(PMID, "", [EVIDENCE])]
    (sentence,) = Verifier(nli).verify(answer, evidence).sentences
    set_aside = [
        c.detail for claim in sentence.claims for c in claim.checks if c.name == SHARED_NEGATION
    ]
    return sentence.verdict, set_aside


def test_without_negation_reads_the_affirmative() -> None:
    assert without_negation(EVIDENCE).startswith("significant correlation was found between")
    assert without_negation("Bone defects were not correlated.") == "bone defects were correlated."
    assert without_negation("The method cannot estimate it.") == "the method can estimate it."
    assert without_negation("These differences didn't achieve significance.") == (
        "these differences did achieve significance."
    )
    assert not is_negated(without_negation("Neither A nor B was non-significant."))


@pytest.mark.parametrize(
    ("claim", "evidence", "alike"),
    [
        ("Humeral and glenoid bone defects were not correlated.", EVIDENCE, True),
        # PMID 9444542: "without HCA" negates nothing the claim says; the clause it matches is
        # negated by "No significant differences".
        (
            "HCA was not found to be a predictor of subsequent cognitive decline in this series.",
            "No significant differences in rate of cognitive decline, mortality or progression to "
            "dementia were found between subjects with or without HCA.",
            True,
        ),
        # PMID 19155657: the only negation word ("without MetS") sits in a finding that is no
        # negation of the claim's.
        (
            "Left ventricular dimensions are not influenced by MetS.",
            "Compared to the control group, patients with or without MetS exhibited significantly "
            "increased interventricular septum and posterior wall thickness, left atrial "
            "diameter, relative wall thickness, and left ventricular mass (p<0.05).",
            False,
        ),
        ("Humeral and glenoid bone defects were correlated.", EVIDENCE, False),
    ],
)
def test_negated_alike_reads_the_clause_the_claim_matches(
    claim: str, evidence: str, alike: bool
) -> None:
    assert negated_alike(claim, evidence) is alike


def test_two_negations_that_agree_are_no_contradiction() -> None:
    nli = reads_negation_as_contradiction()
    verdict, set_aside = verify(NEGATED, nli)
    assert verdict is Verdict.UNSUPPORTED
    assert set_aside and "both negated" in set_aside[0]
    # The pair was read again without its negation words: one more NLI pair.
    claim = "Humeral and glenoid bone defects were not correlated."
    assert nli.pairs == [
        NLIPair(EVIDENCE, claim),
        NLIPair(without_negation(EVIDENCE), "humeral and glenoid bone defects were correlated."),
    ]


def test_a_negation_flip_stays_contradicted() -> None:
    verdict, set_aside = verify(FLIPPED, reads_negation_as_contradiction())
    assert verdict is Verdict.CONTRADICTED and not set_aside


def test_a_contradiction_that_survives_the_affirmative_reading_stands() -> None:
    verdict, set_aside = verify(NEGATED, reads_negation_as_contradiction(stubborn=True))
    assert verdict is Verdict.CONTRADICTED and not set_aside


@pytest.mark.skipif(not BUNDLED.exists(), reason="bundled NLI model not in the tree")
def test_the_bundled_model_no_longer_contradicts_the_abstract_it_restates() -> None:
    bundled = Verifier.from_config(verifier_config({"nli": {"name": "bundled", "threads": 1}}))
    evidence = [make_evidence(PMID, "", [EVIDENCE])]
    (sentence,) = bundled.verify(NEGATED, evidence).sentences
    assert sentence.verdict is not Verdict.CONTRADICTED
    (flipped,) = bundled.verify(FLIPPED, evidence).sentences
    assert flipped.verdict is Verdict.CONTRADICTED
