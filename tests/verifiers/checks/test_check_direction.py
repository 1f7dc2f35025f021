from __future__ import annotations

import pytest

from verifiers.checks.direction import COMPARISON, check_comparison, check_direction, direction

# SciFact corpus (ODC-By) sentences: docs 888896, 1156322, 2158500, 1122279, 15482274 and
# 23349986.
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
ULTRASOUND = [
    (
        "15482274",
        "Ultrasound imaging also significantly reduced the risk of traumatic procedures (risk "
        "ratio 0.27 (0.11 to 0.67), P=0.005), the number of insertion attempts (mean difference "
        "-0.44 (-0.64 to -0.24), P<0.001), and the number of needle redirections (mean difference "
        "-1.00 (-1.24 to -0.75), P<0.001).",
    )
]

DEXAMETHASONE = [
    (
        "23349986",
        "CONCLUSION In this study of children undergoing tonsillectomy, dexamethasone decreased "
        "the risk of PONV dose dependently but was associated with an increased risk of "
        "postoperative bleeding.",
    )
]


def test_direction_of_a_sentence() -> None:
    assert direction("Leptin increased entries.") == 1
    assert direction("Leptin reduced entries.") == -1
    assert direction("Leptin reduced the increase in entries.") == 0  # mixed: no one way
    assert direction("Leptin was given.") == 0
    assert direction("IL-6 was up-regulated.") == 1
    assert direction("Ultrasound guidance raises the number of attempts.") == 1
    assert direction("Statins lower LDL cholesterol.") == -1
    # A word after a hyphen describes a name: no change is stated.
    assert direction("LPS-induced inflammation was reduced.") == -1
    assert direction("HER2-positive tumours were found in 12 patients.") == 0
    assert direction("The new regimen was non-inferior.") == 0
    assert direction("Bcl-2 was Down-regulated.") == -1


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


def test_direction_words_are_left_out_of_the_overlap_that_finds_the_closest_clause() -> None:
    # Counted as words the evidence lacks, "increased" and "raises" kept a short claim from
    # being a near copy of the sentence it flips (SciFact dev: the ultrasound claim is
    # contradicted by its abstract; the model supported it).
    assert check_direction("Adhesions increased.", MESH).passed is False  # type: ignore[union-attr]
    claim = "Ultrasound guidance significantly raises the number of traumatic procedures."
    result = check_direction(claim, ULTRASOUND)
    assert result is not None and not result.passed and result.pmid == "15482274"
    agreeing = "Ultrasound guidance significantly lowers the number of traumatic procedures."
    assert check_direction(agreeing, ULTRASOUND).passed is True  # type: ignore[union-attr]


def test_a_sentence_pointing_both_ways_is_read_by_the_clause_the_claim_copies() -> None:
    # SciFact dev: the model supported this claim from the sentence that contradicts it.
    claim = "Dexamethasone decreases risk of postoperative bleeding."
    result = check_direction(claim, DEXAMETHASONE)
    assert result is not None and not result.passed
    assert "increased risk of postoperative bleeding" in result.detail
    restated = "Dexamethasone increases the risk of postoperative bleeding."
    assert check_direction(restated, DEXAMETHASONE).passed is True  # type: ignore[union-attr]
    other_clause = "Dexamethasone decreased the risk of PONV dose dependently."
    assert check_direction(other_clause, DEXAMETHASONE).passed is True  # type: ignore[union-attr]


def test_a_claim_whose_closest_sentence_points_no_way_is_read_by_the_clause_it_copies() -> None:
    # The design sentence holds most of the claim's words and no direction word; the finding
    # is the sentence the claim copies both ways.
    trial = [
        ("k", "We randomised 312 adults with knee osteoarthritis to daily exercise for 12 weeks."),
        ("k", "Daily exercise worsened knee pain."),
    ]
    claim = "Knee pain improved with daily exercise in adults with knee osteoarthritis."
    result = check_direction(claim, trial)
    assert result is not None and not result.passed and "worsened knee pain" in result.detail
    # A claim that says more than the finding copies no sentence: nothing is read.
    longer = "Knee pain improved with twelve weeks of daily home exercise in adults with knee OA."
    assert check_direction(longer, trial) is None


def test_a_word_and_its_plural_in_y_and_ies_meet() -> None:
    # PubMedQA (MIT) 18322741, and a held-out answer of `eval answers` with its direction
    # flipped: "surgeries" counted as a word the claim's "surgery" is not, the finding was no
    # near copy, and the flip passed as supported.
    afib = [
        (
            "18322741",
            "Laparoscopic (p = 0.004) and nonthoracic surgeries (p = 0.01) were associated with "
            "lower risk of atrial fibrillation.",
        )
    ]
    claim = "Laparoscopic surgery is associated with higher risk of atrial fibrillation."
    result = check_direction(claim, afib)
    assert result is not None and not result.passed and result.pmid == "18322741"
    restated = "Laparoscopic surgery is associated with lower risk of atrial fibrillation."
    assert check_direction(restated, afib).passed is True  # type: ignore[union-attr]


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
