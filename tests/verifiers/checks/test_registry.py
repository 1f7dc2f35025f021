"""Checks are components chosen by name: config turns one off, and a misspelt name is an error
that names the registered ones."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from verifiers import UnknownComponent, Verdict, Verifier, VerifierError, make_evidence
from verifiers.checks import DEFAULT_CHECKS, check_names, get_checks
from verifiers.config import verifier_config
from verifiers.nli import NLIPair, NLIScores

# SciFact corpus doc 2158500 (ODC-By), as in test_check_direction.py.
LEPTIN = (
    "Repeated administrations of leptin significantly increased the percentage of the total "
    "number of entries in the open arms and the number of total entries."
)
FLIPPED = "Repeated leptin administration decreased entries in the open arms [PMID:2158500]."


class EntailsEverything:
    """An NLI backend that entails every pair: what the checks add shows on its own."""

    name = "entails"
    version = "entails-everything"

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        return [NLIScores(0.98, 0.01, 0.01) for _ in pairs]


def verdict(checks: Sequence[str] | None) -> Verdict:
    evidence = [make_evidence("2158500", "Leptin and anxiety", [LEPTIN])]
    verifier = Verifier(EntailsEverything(), checks=None if checks is None else get_checks(checks))
    [sentence] = verifier.verify(FLIPPED, evidence).sentences
    return sentence.verdict


def test_turning_a_check_off_changes_the_verdict_it_decided() -> None:
    assert verdict(None) is Verdict.CONTRADICTED  # the direction check catches the flip
    without = [name for name in DEFAULT_CHECKS if name != "direction"]
    assert verdict(without) is Verdict.SUPPORTED  # the NLI verdict stands


def test_every_built_in_check_is_registered_and_on_by_default() -> None:
    assert set(DEFAULT_CHECKS) == set(check_names())
    assert [c.name for c in Verifier(EntailsEverything()).checks] == list(DEFAULT_CHECKS)


def test_an_unknown_check_is_an_error_naming_the_known_ones() -> None:
    known = "choose from alignment, direction, entities, negation, numbers, qualifiers, quotes"
    with pytest.raises(UnknownComponent, match=f"unknown check 'quote'; {known}") as caught:
        get_checks(["numbers", "quote"])
    assert isinstance(caught.value, VerifierError) and isinstance(caught.value, ValueError)
    # In the verifier's configuration it is refused as it is read, before any model loads.
    with pytest.raises(ValueError, match=f"checks\n.*unknown check 'quote'; {known}"):
        verifier_config({"checks": ["numbers", "quote"]})
