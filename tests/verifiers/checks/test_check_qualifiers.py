"""Qualifiers against their evidence, on real abstract sentences (SciFact corpus 17997584 and
21366394, Check-COVID biho913w; tests/fixtures/verification/evidence.jsonl)."""

from __future__ import annotations

import pytest

from verifiers.checks.qualifiers import OVERSTATED, QUANTIFIER, check_qualifiers

TREG = [
    (
        "17997584",
        "Treg-cell-specific deletion of integrin \u03b1v\u03b28 did not result in a spontaneous "
        "inflammatory phenotype, suggesting that this pathway is not important in "
        "Treg-cell-mediated maintenance of immune homeostasis.",
    )
]
ASTHMA = [
    (
        "21366394",
        "Therefore, CX3CR1 and CX3CL1 may represent attractive therapeutic targets in asthma.",
    )
]
CRUISE = [
    (
        "biho913w",
        "The majority of COVID-19-positive patients were asymptomatic (81%, 104 patients).",
    )
]


@pytest.mark.parametrize(
    ("claim", "evidence", "failed"),
    [
        # Certainty the hedged evidence does not state.
        ("CX3CR1 and CX3CL1 must represent attractive therapeutic targets in asthma.", ASTHMA,
         OVERSTATED),
        ("CX3CR1 and CX3CL1 certainly represent attractive therapeutic targets in asthma.",
         ASTHMA, OVERSTATED),
        ("Deletion of integrin \u03b1v\u03b28 in Treg cells proved that this pathway is not "
         "important in Treg-cell-mediated maintenance of immune homeostasis.", TREG, OVERSTATED),
        # The other side of a scale the evidence states.
        ("A minority of COVID-19-positive patients were asymptomatic.", CRUISE, QUANTIFIER),
        ("Few COVID-19-positive patients were asymptomatic.", CRUISE, QUANTIFIER),
    ],
)  # fmt: skip
def test_a_changed_qualifier_fails(
    claim: str, evidence: list[tuple[str, str]], failed: str
) -> None:
    results = check_qualifiers(claim, evidence)
    assert [r.name for r in results] == [failed]
    assert not results[0].passed and results[0].pmid == evidence[0][0]
    assert "\u201c" in results[0].detail  # it quotes the evidence clause it compared


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # Dropping a hedge is how answers summarise: left alone.
        ("CX3CR1 and CX3CL1 represent attractive therapeutic targets in asthma.", ASTHMA),
        ("CX3CR1 and CX3CL1 may represent attractive therapeutic targets in asthma.", ASTHMA),
        # The same side of the scale, in other words.
        ("Most COVID-19-positive patients were asymptomatic.", CRUISE),
        ("The majority of COVID-19-positive patients were asymptomatic.", CRUISE),
        # Certainty about evidence that does not hedge is not this check's business.
        ("Most COVID-19-positive patients were clearly asymptomatic.", CRUISE),
        # Not a near copy of any evidence: nothing to compare.
        ("Few patients with asthma need therapy.", CRUISE),
        ("CX3CR1 is expressed in the lung.", ASTHMA),
    ],
)
def test_faithful_or_unrelated_claims_pass(claim: str, evidence: list[tuple[str, str]]) -> None:
    assert check_qualifiers(claim, evidence) == []
