# ruff: noqa: RUF001 (Greek letters are part of the real abstract text)
from __future__ import annotations

from verifiers.checks.negation import check_negation, is_negated

# SciFact corpus doc 17997584 (ODC-By), the rationale sentence of dev claim 327.
EVIDENCE = [
    (
        "17997584",
        "Treg-cell-specific deletion of integrin αvβ8 did not result in a spontaneous "
        "inflammatory phenotype, suggesting that this pathway is not important in "
        "Treg-cell-mediated maintenance of immune homeostasis.",
    )
]


def test_polarity() -> None:
    assert is_negated("Deletion did not cause inflammation.")
    assert is_negated("There was no effect.")
    assert not is_negated("Deletion caused inflammation.")
    assert not is_negated("It was not without effect.")  # double negation


def test_matching_polarity_passes() -> None:
    claim = "Deletion of αvβ8 does not result in a spontaneous inflammatory phenotype."
    result = check_negation(claim, EVIDENCE)
    assert result is not None and result.passed and result.pmid == "17997584"


def test_dropped_negation_fails() -> None:
    claim = "Treg-cell-specific deletion of integrin αvβ8 results in an inflammatory phenotype."
    result = check_negation(claim, EVIDENCE)
    assert result is not None and not result.passed
    assert "evidence is negated" in result.detail


def test_unrelated_evidence_is_not_compared() -> None:
    assert check_negation("Statins do not lower LDL cholesterol.", EVIDENCE) is None
