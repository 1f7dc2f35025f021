from __future__ import annotations

import pytest

from verifiers.checks.direction import COMPARISON, check_comparison, check_direction, direction

# SciFact corpus (ODC-By) sentences: docs 888896, 1156322, 2158500 and 1122279.
CHEMOKINES = [("888896", "The levels of CCL5, CCL11, and iNOS were also significantly reduced.")]
MESH = [
    (
        "1156322",
        "CONCLUSIONS Visceral adhesions to polypropylene mesh are significantly reduced because "
        "of acetic acid extracted collagen coating.",
    )
]
LEPTIN = [
    (
        "2158500",
        "Repeated administrations of leptin significantly increased the percentage of the total "
        "number of entries in the open arms and the number of total entries.",
    )
]
ENOS = [
    (
        "1122279",
        "Importantly, ecNOS mRNA expression was significantly decreased in arterioles isolated "
        "from LCx versus LAD regions of SED animals.",
    )
]


def test_direction_of_a_sentence() -> None:
    assert direction("Leptin increased entries.") == 1
    assert direction("Leptin reduced entries.") == -1
    assert direction("Leptin reduced the increase in entries.") == 0  # mixed: no one way
    assert direction("Leptin was given.") == 0
    assert direction("IL-6 was up-regulated.") == 1


@pytest.mark.parametrize(
    ("claim", "evidence", "passed"),
    [
        ("The levels of CCL5, CCL11 and iNOS were significantly reduced.", CHEMOKINES, True),
        ("The levels of CCL5, CCL11 and iNOS were significantly increased.", CHEMOKINES, False),
        ("Collagen coating reduces visceral adhesions to polypropylene mesh.", MESH, True),
        ("Collagen coating increases visceral adhesions to polypropylene mesh.", MESH, False),
        ("Repeated leptin administration increased entries in the open arms.", LEPTIN, True),
        ("Repeated leptin administration decreased entries in the open arms.", LEPTIN, False),
        ("Repeated leptin administration inhibited entries in the open arms.", LEPTIN, False),
    ],
)
def test_a_swapped_direction_word_fails(
    claim: str, evidence: list[tuple[str, str]], passed: bool
) -> None:
    result = check_direction(claim, evidence)
    assert result is not None and result.name == "direction" and result.passed is passed


def test_no_verdict_without_a_near_copy_a_negation_or_a_comparison() -> None:
    assert check_direction("Aspirin increased bleeding in surgery.", LEPTIN) is None
    assert check_direction("Leptin did not increase entries in the open arms.", LEPTIN) is None
    # "decreased in LCx versus LAD" is the same finding as "increased in LAD versus LCx".
    claim = "ecNOS mRNA expression was increased in LAD versus LCx arterioles of SED animals."
    assert check_direction(claim, ENOS) is None


# PubMedQA 18616781 and 15943725 (MIT): two comparisons of their results and conclusions.
COMPARED = [
    (
        "18616781",
        "The Hcy level was significantly higher in male patients than in female patients "
        "(28.67 +/- 15.95 vs. 15.56 +/- 6.2 micromol L(-1); P<0.001).",
    ),
    (
        "15943725",
        "It is concluded that serum pancreatic lipase is a more accurate biomarker of acute "
        "pancreatitis than serum amylase.",
    ),
    (
        "21368683",
        "We analyzed a national cohort of more than 1.3 million new nursing home admissions.",
    ),
    (
        "11838307",
        "In a prospective evaluation, cold knife cone specimens were 50% longer and 100% heavier "
        "than LEEP specimens.",
    ),
]


@pytest.mark.parametrize(
    ("claim", "turned"),
    [
        ("Homocysteine levels were higher in female patients than in male patients.", True),
        ("Homocysteine levels were lower in male patients than in female patients.", True),
        ("Homocysteine levels were higher in male patients than in female patients.", False),
        ("Homocysteine levels were lower in female patients than in male patients.", False),
        ("The authors conclude that serum amylase is a more accurate biomarker than lipase.", True),
        ("Serum lipase is a more accurate biomarker than amylase.", False),
        ("Serum amylase is less accurate than lipase.", False),
        # A comparative of size points the comparison too.
        ("LEEP specimens were heavier than cold knife cone specimens.", True),
        ("LEEP specimens were lighter than cold knife cone specimens.", False),
        # A bound is no comparison of two sides.
        ("The study analyzed more than 1.3 million admissions.", False),
    ],
)
def test_a_comparison_turned_round(claim: str, turned: bool) -> None:
    result = check_comparison(claim, COMPARED)
    if turned:
        assert result is not None and (result.name, result.passed) == (COMPARISON, False)
    else:
        assert result is None
