"""Aligned changes against their evidence, on real abstract sentences (SciFact corpus 1568684,
45638119, 21366394, 17997584, Check-COVID biho913w and 5sfojk7y;
tests/fixtures/verification/evidence.jsonl)."""

from __future__ import annotations

import pytest

from verifiers.checks import get_checks
from verifiers.checks.alignment import ALIGNED_CHANGE, ALIGNED_UNSTATED, check_alignment

CDCA = [
    ("1568684", "Treatment of 12 healthy female subjects with CDCA for 2 days resulted in "
     "increased BAT activity."),
    ("1568684", "Whole-body energy expenditure was also increased upon CDCA treatment."),
]  # fmt: skip
ALDH = [
    ("45638119", "In breast carcinomas, high ALDH activity identifies the tumorigenic cell "
     "fraction, capable of self-renewal and of generating tumors that recapitulate the "
     "heterogeneity of the parental tumor."),
    ("45638119", "In a series of 577 breast carcinomas, expression of ALDH1 detected by "
     "immunostaining correlated with poor prognosis."),
]  # fmt: skip
ASTHMA = [
    ("21366394", "Here we found that untreated CX3CR1-deficient mice or wild-type (WT) mice "
     "treated with CX3CR1-blocking reagents show reduced lung disease upon allergen "
     "sensitization and challenge."),
]  # fmt: skip
TREG = [
    ("17997584", "Treg-cell-specific deletion of integrin \u03b1v\u03b28 did not result in a "
     "spontaneous inflammatory phenotype, suggesting that this pathway is not important in "
     "Treg-cell-mediated maintenance of immune homeostasis."),
]  # fmt: skip
CRUISE = [
    ("biho913w", "Of the 217 passengers and crew on board, 128 tested positive for COVID-19 on "
     "reverse transcription-PCR (59%)."),
]  # fmt: skip
ABO = [
    ("5sfojk7y", "The results showed that blood group A was associated with a higher risk for "
     "acquiring COVID-19 compared with non-A blood groups, whereas blood group O was associated "
     "with a lower risk for the infection compared with non-O blood groups."),
]  # fmt: skip


def _failed(claim: str, evidence: list[tuple[str, str]]) -> list[str]:
    return [r.name for r in check_alignment(claim, evidence) if not r.passed]


@pytest.mark.parametrize(
    ("claim", "evidence", "failed"),
    [
        # Another number, in digits or in words.
        (
            "Treatment of 12 healthy female subjects with CDCA for 3 days resulted in increased "
            "BAT activity.",
            CDCA,
            ALIGNED_CHANGE,
        ),
        (
            "Treatment of 12 healthy female subjects with CDCA for two days resulted in increased "
            "BAT activity.",
            CDCA,
            None,
        ),  # the same number in words
        (
            "Of the 217 passengers and crew on board, 182 tested positive for COVID-19.",
            CRUISE,
            ALIGNED_CHANGE,
        ),
        # The opposite direction, or the other side of a scale.
        (
            "Whole-body energy expenditure was also decreased upon CDCA treatment.",
            CDCA,
            ALIGNED_CHANGE,
        ),
        (
            "In breast carcinomas, low ALDH activity identifies the tumorigenic cell fraction.",
            ALDH,
            ALIGNED_CHANGE,
        ),
        (
            "Expression of ALDH1 detected by immunostaining correlated with good prognosis.",
            ALDH,
            None,
        ),  # "good" is no word of a scale the check knows: left to the model
        (
            "Untreated CX3CR1-deficient mice show increased lung disease upon allergen "
            "sensitization and challenge.",
            ASTHMA,
            ALIGNED_CHANGE,
        ),
        # A flip inside a negated claim: not what the evidence says, not its opposite either.
        (
            "Deletion of integrin \u03b1v\u03b28 did not result in a spontaneous inflammatory "
            "phenotype, suggesting that this pathway is not unimportant.",
            TREG,
            None,
        ),
        # Another symbol where the evidence names one; a plural is the same name.
        (
            "In a series of 577 breast carcinomas, expression of ALDH2 detected by immunostaining "
            "correlated with poor prognosis.",
            ALDH,
            ALIGNED_UNSTATED,
        ),
        (
            "In breast carcinomas, high ALDHs activity identifies the tumorigenic cell fraction.",
            ALDH,
            None,
        ),
        # Comparisons: the sides the other way round, or restated from the other side.
        (
            "Blood group A was associated with a higher risk for acquiring COVID-19 compared with "
            "blood group O.",
            ABO,
            None,
        ),  # not a near copy of one side's clause in order
        (
            "Whereas blood group O was associated with a lower risk for the infection compared "
            "with non-O blood groups.",
            ABO,
            None,
        ),
        (
            "Blood group O was associated with a higher risk for the infection compared with "
            "non-O blood groups.",
            ABO,
            ALIGNED_CHANGE,
        ),
        (
            "Blood group O was associated with a lower risk for the infection compared with "
            "non-O blood groups.",
            ABO,
            None,
        ),
    ],
)
def test_changes_against_real_evidence(claim: str, evidence, failed: str | None) -> None:
    got = _failed(claim, evidence)
    assert got == ([failed] if failed else []), got


def test_the_sides_of_a_comparison_the_other_way_round() -> None:
    evidence = [("x", "Pain scores were lower in the ketamine group than in the placebo group.")]
    swapped = "Pain scores were lower in the placebo group than in the ketamine group."
    restated = "Pain scores were higher in the placebo group than in the ketamine group."
    [result] = check_alignment(swapped, evidence)
    assert (result.name, result.passed) == (ALIGNED_CHANGE, False)
    assert "comparison the other way round" in result.detail
    assert _failed(restated, evidence) == []


def test_longer_sides_swapped_in_a_reworded_claim() -> None:
    """Sides of more than three words, in a claim that rewords its opening: the run between
    copied words holds the evidence's words in another order, the comparison word between
    sides that changed places."""
    evidence = [
        (
            "x",
            "Pain scores at 24 hours were lower in the patients given ketamine before surgery "
            "than in the patients given placebo, with similar rates of nausea.",
        )
    ]
    swapped = (
        "In this trial, pain scores at 24 hours were lower in the patients given placebo than "
        "in the patients given ketamine before surgery, with similar rates of nausea."
    )
    moved = (
        "Compared with placebo, ketamine before surgery gave lower pain scores at 24 hours, "
        "with similar rates of nausea."
    )
    [result] = check_alignment(swapped, evidence)
    assert (result.name, result.passed) == (ALIGNED_CHANGE, False)
    assert "comparison the other way round" in result.detail
    assert _failed(moved, evidence) == []


def test_the_detail_names_both_words_and_the_evidence() -> None:
    [result] = check_alignment(
        "Whole-body energy expenditure was also decreased upon CDCA treatment.", CDCA
    )
    assert result.pmid == "1568684"
    assert "\u2018decreased\u2019 where the evidence says \u2018increased\u2019" in result.detail
    assert "Whole-body energy expenditure was also increased" in result.detail


def test_a_flip_in_a_negated_claim_withholds_support() -> None:
    evidence = [("x", "The accuracy of PET in patients with diabetes was not significantly "
                 "reduced.")]  # fmt: skip
    claim = "The accuracy of PET in patients with diabetes was not significantly increased."
    assert _failed(claim, evidence) == [ALIGNED_UNSTATED]


# PubMedQA 18594195's conclusion: a claim cut from it at the comma ends on the word it changed.
REFUSAL = [
    ("18594195", "As in many studies, the refusal rate in this study is high, and seems to be "
     "related to physical mobility restrictions, travel distance and, partly, to availability "
     "of emotional support."),
]  # fmt: skip


def test_a_claim_cut_at_a_clause_ends_on_the_word_it_flipped() -> None:
    # The claim's last word faces the evidence's own, however long the sentence goes on.
    claim = "As in many studies, the refusal rate in this study is low."
    assert _failed(claim, REFUSAL) == [ALIGNED_CHANGE]
    (result,) = check_alignment(claim, REFUSAL)
    assert "\u2018low\u2019 where the evidence says \u2018high\u2019" in result.detail
    # The same cut, copied or ending on a word that is no opposite, is no change.
    assert _failed("As in many studies, the refusal rate in this study is high.", REFUSAL) == []
    assert _failed("As in many studies, the refusal rate in this study is notable.", REFUSAL) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "failed"),
    [
        # PubMedQA 22233470 and 22349635: benefit and harm are opposites, in a negated claim
        # a flip that withholds support.
        (
            "Ensure that all Kenyans harm from health care when they need it.",
            "Ensure that all Kenyans benefit from health care when they need it.",
            ALIGNED_CHANGE,
        ),
        (
            "Elderly patients with MSCC did not harm from surgery in addition to radiotherapy "
            "regarding functional outcome.",
            "Elderly patients with MSCC did not benefit from surgery in addition to radiotherapy "
            "regarding functional outcome, local control of MSCC, or survival.",
            ALIGNED_UNSTATED,
        ),
    ],
)
def test_benefit_and_harm_are_opposites(claim: str, evidence: str, failed: str) -> None:
    assert _failed(claim, [("x", evidence)]) == [failed]


def test_paraphrase_and_unrelated_evidence_give_nothing_to_compare() -> None:
    # A rewording shares too few words in order; an unrelated sentence none.
    assert check_alignment("CDCA raised how much energy the body spent overall.", CDCA) == []
    assert check_alignment("Dupilumab was approved in 2017.", CDCA) == []
    assert check_alignment("", CDCA) == []


def test_a_copy_without_a_change_passes() -> None:
    [result] = check_alignment("Whole-body energy expenditure was increased upon CDCA.", CDCA)
    assert (result.name, result.passed, result.pmid) == (ALIGNED_CHANGE, True, "1568684")


def test_it_is_a_default_check_whose_change_contradicts() -> None:
    (check,) = get_checks(["alignment"])
    assert check.effects[ALIGNED_CHANGE] == "contradicts"
    assert check.effects[ALIGNED_UNSTATED] == "withholds_support"
    assert "alignment" in {c.name for c in get_checks()}


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # A Greek letter spelled in Latin, as symbols are ("gH2AX", "IFNg").
        (
            "Irradiation induced phosphorylation of BRCA1, Chk2 and gH2AX in tumour cells.",
            "Irradiation induced phosphorylation of BRCA1, Chk2 and \u03b3H2AX in tumour cells.",
        ),
        # A one-letter lower-case prefix spells the same name ("hTERT" is human TERT).
        (
            "Expression of hTERT was detected in every tumour sample by RT-PCR.",
            "Expression of TERT was detected in every tumour sample by RT-PCR.",
        ),
        # The same term written joined or apart.
        (
            "Serum IL6 levels fell after treatment with tocilizumab in every patient.",
            "Serum IL-6 levels fell after treatment with tocilizumab in every patient.",
        ),
        # A difference held only by stopwords ("of the") could face any words: a clause the
        # claim moved to its end is no changed number.
        (
            "The vaccine was replaced with a quadrivalent vaccine in advance of the 2015-2016 "
            "season.",
            "In advance of the 2015-2016 season, the vaccine was replaced with a quadrivalent "
            "vaccine, which contains 9 \u00b5g hemagglutinin per strain of the two A strains.",
        ),
    ],
)
def test_spellings_and_moved_clauses_are_no_change(claim: str, evidence: str) -> None:
    assert _failed(claim, [("x", evidence)]) == []


def test_an_ordinal_is_a_number() -> None:
    evidence = [
        ("x", "The first autosomal dominant mutation in the APP gene was described in 1991.")
    ]
    claim = "The third autosomal dominant mutation in the APP gene was described in 1991."
    assert _failed(claim, evidence) == [ALIGNED_CHANGE]


def test_a_name_swapped_between_copied_words_counts_even_if_the_sentence_uses_it() -> None:
    # "CGRP" is in the sentence, but not where the claim puts it: the approving agency.
    evidence = [
        ("x", "Two antibodies directed towards the CGRP ligand were approved by the FDA in "
         "September 2018.")
    ]  # fmt: skip
    claim = "Two antibodies directed towards the CGRP ligand were approved by the CGRP in 2018."
    assert _failed(claim, evidence) == [ALIGNED_UNSTATED]


def test_two_names_in_another_order_are_no_swap() -> None:
    evidence = [("x", "Arginine vasotocin (AVT) is the non-mammalian homolog of arginine "
                 "vasopressin (AVP).")]  # fmt: skip
    claim = "Arginine vasopressin (AVP) is the mammalian homolog of arginine vasotocin (AVT)."
    assert _failed(claim, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "failed"),
    [
        # A name that extends the other with capitals or digits names something more specific.
        (
            "Variants in CYP reduce the clearance of tacrolimus in kidney recipients.",
            "Variants in CYP3A4 reduce the clearance of tacrolimus in kidney recipients.",
            ALIGNED_UNSTATED,
        ),
        (
            "Variants in CYP3A4 reduce the clearance of tacrolimus in kidney recipients.",
            "Variants in CYP reduce the clearance of tacrolimus in kidney recipients.",
            ALIGNED_UNSTATED,
        ),
        (
            "The L124 mutation abolished binding of the protein to anionic membranes.",
            "The L124D mutation abolished binding of the protein to anionic membranes.",
            ALIGNED_UNSTATED,
        ),
        # A longer lower-case prefix names a narrower class; a plural grows no lower-case
        # ending ("RNAs" is not "RNase").
        (
            "Enhancer RNAs are a group of lncRNAs transcribed by RNA polymerase II.",
            "Enhancer RNAs are a group of RNAs transcribed by RNA polymerase II.",
            ALIGNED_UNSTATED,
        ),
        (
            "Circular RNAs are stable and resistant to RNAs R digestion in cell lysates.",
            "Circular RNAs are stable and resistant to RNase R digestion in cell lysates.",
            ALIGNED_UNSTATED,
        ),
        # A hyphenated or lower-case ending spells the same name.
        (
            "Patients with COVID admitted to intensive care had higher D-dimer levels.",
            "Patients with COVID-19 admitted to intensive care had higher D-dimer levels.",
            None,
        ),
        (
            "Serum TNFa levels fell after treatment with the antibody in every patient.",
            "Serum TNF levels fell after treatment with the antibody in every patient.",
            None,
        ),
    ],
)
def test_a_more_specific_name_is_another_name(claim: str, evidence: str, failed) -> None:
    assert _failed(claim, [("x", evidence)]) == ([failed] if failed else [])


def test_a_name_the_evidence_holds_elsewhere_but_not_as_often_is_a_swap() -> None:
    # "S1P2" is in the sentence (as the exception), "S1P1" twice where the claim has it once.
    evidence = [
        ("x", "Fingolimod is an agonist of all S1P receptors except S1P2, and a functional "
         "antagonist of S1P1 by induction of irreversible S1P1 internalization.")
    ]  # fmt: skip
    claim = (
        "Fingolimod is a functional antagonist of S1P1 by induction of irreversible S1P2 "
        "internalization."
    )
    assert _failed(claim, evidence) == [ALIGNED_UNSTATED]
    restated = "Fingolimod is a functional antagonist of S1P1 by induction of irreversible S1P1 "
    assert _failed(restated + "internalization.", evidence) == []


def test_a_claim_opening_with_another_name_than_the_words_it_faces() -> None:
    # The evidence's run before the copied words is longer than the claim's: the claim's
    # opening words face as many of its last ones.
    evidence = [
        ("x", "Furthermore, we describe TH1579 as a best-in-class MTH1 inhibitor with potent "
         "anticancer activity in vivo.")
    ]  # fmt: skip
    assert _failed("DNA is a best-in-class MTH1 inhibitor with potent anticancer activity.",
                   evidence) == [ALIGNED_UNSTATED]  # fmt: skip
    assert _failed("TH1579 is a best-in-class MTH1 inhibitor with potent anticancer activity.",
                   evidence) == []  # fmt: skip
    # Only a changed name is read there: other facing words are a rewording.
    assert _failed("It is a best-in-class MTH1 inhibitor with potent anticancer activity.",
                   evidence) == []  # fmt: skip


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # One name put for a term the tokens cut in two ("BS-seq"), and the other way round.
        (
            "We integrated the logic related to GPU alignment into the read-alignment algorithms.",
            "We integrated the logic related to BS-seq alignment into the read-alignment "
            "algorithms.",
        ),
        (
            "Patients given LB-100 had a significant reduction in tumour volume at six weeks.",
            "Patients given MTD had a significant reduction in tumour volume at six weeks.",
        ),
    ],
)
def test_a_name_put_for_a_hyphenated_term_is_a_swap(claim: str, evidence: str) -> None:
    assert _failed(claim, [("x", evidence)]) == [ALIGNED_UNSTATED]


def test_a_claim_that_puts_a_section_heading_for_a_name_is_a_changed_name() -> None:
    # "SUMMARY: X is ..." states X; the heading is structure, so "SUMMARY is ..." names another
    # (a structured abstract's first sentence, as BioASQ's abstracts print it; words ours).
    stated = "HMMTool is an open-source package designed to fit hidden Markov models."
    evidence = [("1", f"SUMMARY: {stated}")]
    assert all(r.passed for r in check_alignment(stated, evidence))
    results = check_alignment(stated.replace("HMMTool", "SUMMARY"), evidence)
    assert [r.name for r in results if not r.passed] == [ALIGNED_UNSTATED], results


def test_a_number_at_the_claim_s_edge_that_the_sentence_states_elsewhere_is_no_change() -> None:
    # PubMedQA 10759659 (MIT): the claim opens with its count, which the alignment faced with
    # "Of 83"; a number swapped inside the copy is still a change.
    evidence = [
        ("10759659", "Of 83 patients examined by flexible cystoscopy, 26 were found to have a "
         "tumour or a suspicious lesion.")
    ]  # fmt: skip
    assert _failed("Twenty-six patients had a tumour or a suspicious lesion.", evidence) == []
    assert _failed("Of 26 patients examined by flexible cystoscopy, 83 were found to have a "
                   "tumour.", evidence) == [ALIGNED_CHANGE]  # fmt: skip
