# ruff: noqa: RUF001 (Greek letters are part of the real abstract text)
from __future__ import annotations

from verifiers.checks.negation import check_negation, is_negated, without_negation

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


# SciFact corpus doc 116792 (ODC-By): one clause affirmed, the next negated.
RAPAMYCIN = [
    (
        "116792",
        "Late rapamycin treatment, after termination of status epilepticus, blocked the chronic "
        "phase of mTOR activation and reduced mossy fiber sprouting and epilepsy but not "
        "neurogenesis or neuronal death.",
    )
]


def test_clauses_are_compared_with_the_clauses_they_copy() -> None:
    """ "reduced sprouting but not neuronal death" keeps both polarities; comparing the whole
    claim with one evidence clause called it a flip."""
    claim = "Late rapamycin treatment reduced mossy fiber sprouting but not neuronal death."
    result = check_negation(claim, RAPAMYCIN)
    assert result is not None and result.passed
    flipped = "Late rapamycin treatment did not reduce mossy fiber sprouting and epilepsy."
    failed = check_negation(flipped, RAPAMYCIN)
    assert failed is not None and not failed.passed
    assert "only the claim is negated" in failed.detail


def test_a_short_claim_is_no_copy_of_a_long_negated_clause() -> None:
    # Two content words shared with a long clause that carries its own "not": not a copy (the
    # whole-sentence comparison called this a flip).
    claim = "Integrin shapes the phenotype."
    assert check_negation(claim, EVIDENCE) is None


# PubMedQA 24625433 (MIT): the study's aim, and the finding that answers it.
HFNC = [
    ("24625433", "To study whether HFNC are noisier than bubble CPAP (BCPAP) for preterm infants."),
    (
        "24625433",
        "A total of 21 HFNC and 13 BCPAP noise measurements were performed in 21 infants.",
    ),
]


def test_a_conclusion_is_no_flip_of_the_question_it_answers() -> None:
    """ "To study whether HFNC are noisier" asks; "HFNC are not noisier" answers. The aim has
    no polarity of its own, so it is never the sentence a claim is compared with."""
    claim = "At the gas flows studied, HFNC are not noisier than BCPAP for preterm infants."
    assert check_negation(claim, HFNC) is None


def test_a_negated_relative_clause_the_claim_leaves_out_is_no_flip() -> None:
    """PubMedQA (MIT), PMID 11566686: "who did not have pyloric stenosis" is a clause of its
    own, so a claim without it is no flip, and a claim that drops its negation still is."""
    evidence = [
        ("11566686", "Fifty-one infants who did not have pyloric stenosis served as controls.")
    ]
    kept = check_negation("Fifty-one infants served as controls.", evidence)
    assert kept is not None and kept.passed
    flipped = check_negation(
        "Fifty-one infants who had pyloric stenosis served as controls.", evidence
    )
    assert flipped is not None and not flipped.passed


def test_a_negated_alternative_the_claim_leaves_out_is_no_flip() -> None:
    """PubMedQA (MIT), PMID 22233470: "and not on ability to pay" is a clause of its own."""
    evidence = [
        ("22233470", "Universal coverage involves ensuring that health care benefits are "
         "distributed on the basis of need for care and not on ability to pay."),
    ]  # fmt: skip
    kept = check_negation(
        "Universal coverage means that health care benefits are distributed on the basis of "
        "need for care.",
        evidence,
    )
    assert kept is not None and kept.passed
    flipped = check_negation(
        "Universal coverage means that health care benefits are not distributed on the basis "
        "of need for care.",
        evidence,
    )
    assert flipped is not None and not flipped.passed


def test_a_negated_alternative_in_brackets_is_no_flip() -> None:
    """BioASQ's ideal answer on Huntington's disease (its snippet as evidence): "(not CTG)"
    negates the alternative, as ", not CTG" does; the clause before it keeps its polarity."""
    evidence = [
        ("1", "Huntington's disease (HD) is an autosomal dominant disorder caused by an expansion "
         "in the trinucleotide CAG repeat in exon-1 in the huntingtin gene"),
    ]  # fmt: skip
    for alternative in ("(not CTG)", ", not CTG,"):
        claim = f"Huntington's disease is caused by a CAG repeat expansion {alternative} in exon-1"
        result = check_negation(claim, evidence)
        assert result is not None and result.passed, (alternative, result)
    flipped = "Huntington's disease is not caused by an expansion of a CAG repeat (in exon-1)"
    result = check_negation(flipped, evidence)
    assert result is not None and not result.passed


def test_a_conclusion_is_no_flip_of_the_methods_it_follows() -> None:
    """PubMedQA (MIT), PMID 19683101: "we investigated X as a diagnostic parameter" says what the
    study did; "X should not be considered as a diagnostic parameter" is its answer."""
    evidence = [
        ("19683101", "In this study, we investigated D-dimer serum level as a diagnostic "
         "parameter for acute appendicitis."),
    ]  # fmt: skip
    claim = (
        "Increased D-dimer levels should not be considered as a diagnostic parameter in "
        "diagnosis of acute appendicitis."
    )
    assert check_negation(claim, evidence) is None


# PubMedQA 16418930 (MIT): a sentence of the abstract, and its conclusion as the answer states it.
OPEN_POSSIBILITY = [
    (
        "16418930",
        "Since optotypes are evaluated on individuals with good visual acuity and without eye "
        "disorders, differences in the lower visual acuity range cannot be excluded.",
    )
]


def test_a_possibility_left_open_is_no_negation() -> None:
    """ "Cannot be excluded" says there may be differences: its paraphrase was called a flip,
    and the model's support of a correct conclusion turned into a contradiction."""
    claim = "Small differences in the lower visual acuity range have to be considered."
    result = check_negation(claim, OPEN_POSSIBILITY)
    assert result is not None and result.passed
    for open_ in (
        "An effect cannot be ruled out.",
        "A benefit could not be excluded.",
        "It is prudent not to dismiss incubation periods up to 14 days.",
    ):
        assert not is_negated(open_), open_
    # A negation beside it still counts, and so does a plain exclusion.
    assert is_negated("No benefit was seen, and harm cannot be excluded.")
    assert is_negated("Patients with diabetes were not excluded.")
    flipped = "Differences in the lower visual acuity range can be excluded."
    assert not is_negated(flipped)  # one side open, the other closed: not this check's to read


# PubMedQA 26999038 (MIT).
UNDETECTED = [
    (
        "26999038",
        "No appreciable concentrations of norfentanyl could be detected in 20 of 48 cases (42%) "
        "and were less than 1 ng/ml in 25 cases (52%).",
    )
]


def test_a_word_that_says_not_is_a_negation() -> None:
    """ "Undetectable" is "could not be detected": its paraphrase was called a flip, and the
    model's support of a correct sentence turned into a contradiction."""
    claim = "Norfentanyl, the main metabolite, was undetectable in 20 of the 48 cases (42%)."
    result = check_negation(claim, UNDETECTED)
    assert result is not None and result.passed
    flipped = "Norfentanyl, the main metabolite, was detectable in 20 of the 48 cases (42%)."
    result = check_negation(flipped, UNDETECTED)
    assert result is not None and not result.passed
    for said in ("Levels were unchanged.", "The marker was absent.", "Growth was unaffected."):
        assert is_negated(said), said
    assert without_negation("Levels were unchanged.") == "levels were changed."


def test_a_negated_alternative_negates_nothing() -> None:
    """PubMedQA 22350859 (MIT): "weaker or not statistically significant" offers two readings,
    one negated; the claim that takes the other was called a flip."""
    evidence = [
        (
            "22350859",
            "Didactic forms were consistently rated higher than testimonials among participants "
            "with higher education, whereas the difference between didactic and testimonial "
            "narrative forms was weaker or not statistically significant among participants "
            "with lower education.",
        )
    ]
    claim = "The advantage of didactic text was weaker among participants with less education."
    result = check_negation(claim, evidence)
    assert result is not None and result.passed
    for alternative in ("whether or not they smoked", "with or without MetS"):
        assert not is_negated(alternative), alternative
    assert is_negated("The difference was not significant.")
    assert is_negated("Patients with no or minimal symptoms.")


# SciFact corpus docs 67787658 and 25440070 (ODC-By).
NOT_YET_KNOWN = [
    (
        "67787658",
        "The mechanism by which TMZ induces cell cycle arrest has not been well-established.",
    ),
    (
        "25440070",
        "Testosterone (T) and its 5alpha-reduced metabolite, dihydrotestosterone (DHT), can "
        "decrease anxiety-like behavior; however, the mechanisms underlying these effects have "
        "not been established.",
    ),
]


def test_what_is_not_yet_known_is_no_negation() -> None:
    """ "The mechanism by which X does Y has not been established" takes X doing Y as known; a
    claim that states it was called a flip, and the correct sentence `contradicted`. What is
    not yet known leaves a claim open at most: it refutes nothing."""
    result = check_negation("TMZ induces cell cycle arrest.", NOT_YET_KNOWN[:1])
    assert result is not None and result.passed
    for unknown in (
        NOT_YET_KNOWN[0][1],
        NOT_YET_KNOWN[1][1],
        "Whether statins reduce dementia has not yet been studied.",
        "Its role in sepsis is not fully understood.",
        "The safety of the drug in pregnancy has never been evaluated.",
    ):
        assert not is_negated(unknown), unknown
    # An absence found is a finding, and a negation beside the unknown still counts.
    for found in (
        "HPV was not detected in any of the tumours.",
        "The drug has not been shown to reduce mortality.",
        "TMZ did not induce arrest, and the mechanism has not been established.",
    ):
        assert is_negated(found), found
    flipped = "TMZ does not induce cell cycle arrest."
    result = check_negation(flipped, NOT_YET_KNOWN[:1])
    assert result is not None and not result.passed
    # A claim that says what is known is compared as it says it.
    known = "The mechanism by which TMZ induces cell cycle arrest has been well established."
    result = check_negation(known, NOT_YET_KNOWN[:1])
    assert result is not None and not result.passed


# PubMedQA 23860049 and 24671913 (MIT); SciFact corpus doc 18895793 (ODC-By).
def test_a_cue_joined_to_a_word_by_a_hyphen_names_a_kind() -> None:
    """ "not-confirmed appendicitis", "no-reflow" name something; read as
    negations, they made a claim about the same cells a flip. After an auxiliary the hyphen is
    a dash, and the cue negates."""
    for kind in (
        "Females older than 10 years presented histologically not-confirmed appendicitis in "
        "22.2% of cases.",
        "The high SxS group had more no-reflow (41% and 25.1%, p<0.001, respectively).",
    ):
        assert not is_negated(kind), kind
    assert is_negated(
        "The finding that there are two routes to nucleosome removal, and a slower one that "
        "does not-clarifies our understanding of the early events of gene activation."
    )
    assert is_negated("Females older than 10 years presented no confirmed appendicitis.")
