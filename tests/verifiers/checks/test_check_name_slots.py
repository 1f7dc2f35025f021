"""A name put in another's place (``verifiers.checks.name_slots``), on sentences of SciFact's
corpus (CC BY 4.0 / ODC-By): abstracts 2727303, 3559136, 2151983, 2272614, 3761017, 581832 and
1145473."""

from __future__ import annotations

from dataclasses import replace

from verifiers.checks import CheckInput
from verifiers.checks.entities import ENTITIES_CHECK, ENTITY, SWAPPED_ENTITY
from verifiers.checks.name_slots import misdefined_names, same_name, swapped_names
from verifiers.checks.names import name_key
from verifiers.windows import Abbreviations, Window, make_evidence

TUBASTATIN = (
    "Tubastatin-A, a specific HDAC6 inhibitor, inhibited STIM1 translocation to plasma membrane "
    "and blocked SOCE activation in cancer cells but not normal epithelial cells."
)
CSF1R = [
    "Treatment with CSF1R inhibitors disrupted this crosstalk and triggered a profound increase "
    "in granulocyte recruitment to tumors.",
    "Combining CSF1R inhibitor with a CXCR2 antagonist blocked granulocyte infiltration of "
    "tumors and showed strong anti-tumor effects.",
]
FOXA1 = (
    "Importantly, we found that FOXA1 binds to genomic regions showing local DNA hypomethylation "
    "and that its cell-type-specific recruitment to chromatin is linked to differential DNA "
    "methylation levels of its binding sites."
)
EGFR = (
    "Activating mutations in the EGF receptor (EGFR) are associated with clinical responsiveness "
    "to EGFR tyrosine kinase inhibitors (TKI), such as erlotinib and gefitinib."
)


def _windows(*texts: str) -> list[tuple[str, str]]:
    return [("1", text) for text in texts]


def test_a_name_of_the_evidence_put_where_it_says_another_is_a_swap() -> None:
    # STIM1 is in the evidence, but as what the inhibitor acts on, not as what it inhibits.
    claim = "Tubastatin-A, a specific STIM1 inhibitor, blocked SOCE activation in cancer cells."
    (swap,) = swapped_names(claim, _windows(TUBASTATIN))
    assert (swap.ours, swap.theirs, swap.pmid) == ("STIM1", "HDAC6", "1")
    assert "specific" in swap.context
    assert swapped_names(claim.replace("STIM1", "HDAC6"), _windows(TUBASTATIN)) == []


def test_the_place_may_be_in_another_sentence_of_the_evidence() -> None:
    claim = "Treatment with CXCR2 inhibitors disrupted this crosstalk."
    (swap,) = swapped_names(claim, _windows(*CSF1R))
    assert (swap.ours, swap.theirs) == ("CXCR2", "CSF1R")
    assert swapped_names(claim.replace("CXCR2", "CSF1R"), _windows(*CSF1R)) == []


def test_the_nearest_content_words_mark_a_place_across_small_words() -> None:
    # "FOXA1 binds to genomic regions" and "EGFR binds the genomic regions": one place.
    claim = "EGFR binds the genomic regions showing local DNA hypomethylation."
    (swap,) = swapped_names(claim, _windows(FOXA1))
    assert (swap.ours, swap.theirs) == ("EGFR", "FOXA1")


def test_articles_do_not_tell_places_apart() -> None:
    evidence = "Compound C, a selective AMPK inhibitor, eliminated this promotional effect."
    (swap,) = swapped_names("Compound C is the selective CXCR2 inhibitor.", _windows(evidence))
    assert (swap.ours, swap.theirs) == ("CXCR2", "AMPK")


DALYS = (
    "We calculated DALYs by summing years of life lost (YLLs) and years of life lived with "
    "disability (YLDs) for each geography, age group, sex, and year."
)
DOWN = (
    "Down syndrome (DS) children have a high frequency of acute megakaryoblastic leukemia (AMKL) "
    "in early childhood."
)


def test_a_short_form_defined_as_another_s_long_form_is_a_swap() -> None:
    forms = {"581832": Abbreviations().of(make_evidence("581832", "", [DALYS]))}
    claim = "YLLs stands for years of life lived with disability."
    (swap,) = misdefined_names(claim, forms, [DALYS])
    assert (swap.ours, swap.theirs, swap.pmid) == ("YLLs", "YLDs", "581832")
    assert misdefined_names(claim.replace("YLLs", "YLDs"), forms, [DALYS]) == []
    # A long form that goes on past the abstract's ("... lost to stroke") is another term.
    assert misdefined_names("YLDs is short for years of life lost to stroke.", forms) == []
    # "Y (X)" reads the words right before the parenthesis, and a word before them that opens
    # the short form too makes it another term's ("disability-adjusted years of life lost").
    (swap,) = misdefined_names("It counts years of life lost (YLDs).", forms, [DALYS])
    assert (swap.ours, swap.theirs) == ("YLDs", "YLLs") and "'years of life lost'" in swap.context
    assert misdefined_names("It counts disability-adjusted years of life lost (DYLs).", forms) == []


def test_a_parenthesised_short_form_is_read_as_defining_the_words_before_it() -> None:
    forms = {"1145473": Abbreviations().of(make_evidence("1145473", "", [DOWN]))}
    claim = "Children with Down syndrome (AMKL) often develop acute megakaryoblastic leukemia."
    (swap,) = misdefined_names(claim, forms, [DOWN])
    assert (swap.ours, swap.theirs) == ("AMKL", "DS")
    right = "Children with Down syndrome often develop acute megakaryoblastic leukemia (AMKL)."
    assert misdefined_names(right, forms, [DOWN]) == []
    # Through the entities check, beside the other names' results.
    windows = (Window("1145473", "", DOWN, 0, len(DOWN), 0, 0),)
    subject = CheckInput(claim, (), windows=windows, abbreviations=forms)
    failed = [r for r in ENTITIES_CHECK.run(subject) if not r.passed]
    assert [r.name for r in failed] == [SWAPPED_ENTITY]
    assert "'AMKL' where the evidence says 'DS'" in failed[0].detail
    assert [r.name for r in ENTITIES_CHECK.run(replace(subject, text=right))] == [ENTITY]


def test_a_generic_name_in_another_s_place_is_caught_by_the_entities_check() -> None:
    # "DNA" is no entity the claim is about (the entity check looks for none), but it stands
    # where the evidence names FOXA1.
    claim = "DNA binds to genomic regions showing local hypomethylation."
    subject = CheckInput(claim, (), windows=(), sentences=())
    assert ENTITIES_CHECK.run(subject) == []  # no windows, nothing to compare
    results = ENTITIES_CHECK.run(_input(claim, FOXA1))
    assert [(r.name, r.passed) for r in results] == [(SWAPPED_ENTITY, False)]
    assert "'DNA' where the evidence says 'FOXA1'" in results[0].detail
    assert ENTITIES_CHECK.effects[SWAPPED_ENTITY] is ENTITIES_CHECK.effects[ENTITY]


def test_a_name_missing_from_the_evidence_fails_the_entity_check_alone() -> None:
    results = ENTITIES_CHECK.run(_input("KRAS binds to genomic regions.", FOXA1))
    assert [(r.name, r.passed) for r in results] == [(ENTITY, False)]


def test_a_name_listed_with_the_other_is_no_swap() -> None:
    # What the evidence says of "erlotinib and gefitinib" it says of each.
    claim = "EGFR-mutant tumours respond to EGFR tyrosine kinase inhibitors such as gefitinib."
    assert swapped_names(claim, _windows(EGFR)) == []
    results = ENTITIES_CHECK.run(_input(claim, EGFR))
    assert [(r.name, r.passed) for r in results] == [(ENTITY, True)]


def test_two_names_of_the_claim_reordered_are_left_to_the_other_checks() -> None:
    # Each name stands where the evidence puts the other: a comparison or a relation turned
    # round, not one entity taken for another (and "TNF and IL-6" read as "IL-6 and TNF"
    # says the same).
    claim = "Combining CXCR2 inhibitor with a CSF1R antagonist blocked granulocyte infiltration."
    assert swapped_names(claim, _windows(CSF1R[1])) == []


def test_every_name_of_a_copied_sentence_stands_in_its_own_place() -> None:
    for sentence in (TUBASTATIN, *CSF1R, FOXA1, EGFR):
        assert swapped_names(sentence, _windows(TUBASTATIN, *CSF1R, FOXA1, EGFR)) == []


def test_another_writing_of_the_same_entity_holds_its_place() -> None:
    # SciFact dev claims and their abstracts: a part of a joined name, a one-letter prefix.
    pairs = [
        (
            "S-nitrosylated GAPDH physiologically transnitrosylates histone deacetylases.",
            "Here, we show that SNO-GAPDH physiologically transnitrosylates nuclear proteins.",
        ),
        (
            "Peroxynitrite is required for nitration of TCR/CD8.",
            "Nitration of TCR-CD8 is induced by MDSCs through hyperproduction of peroxynitrite.",
        ),
        (
            "MicroRNA regulates Neural Stem Cell (NSC) differentiation and proliferation.",
            "MBD1 deficiency impairs adult neural stem/progenitor cell (aNSC) differentiation.",
        ),
        # A short form spelled out, and a disease named for its pathogen.
        ("Use of ACE inhibitors did not raise the risk.", "Use of ACEIs and ARBs was studied."),
        ("UV light kills the COVID-19 virus.", "UV light damages the SARS-CoV-2 virus in air."),
    ]
    for claim, evidence in pairs:
        assert swapped_names(claim, _windows(evidence)) == [], claim
    assert same_name("CYP", "CYP3A4", ["and", "cyp2d6"]) is False  # a family for one enzyme
    # A compound names a kind of its last part: "SNO-GAPDH" is GAPDH, "RNA-seq" is no RNA,
    # and "cis-eQTLs" says more than "eQTLs".
    assert same_name("GAPDH", "SNO-GAPDH") is True
    assert same_name("RNA", "RNA-seq") is False
    assert same_name("cis-eQTLs", "eQTLs") is False


def test_spellings_of_one_name_share_a_key() -> None:
    assert name_key("TGF-\u03b2") == name_key("TGFb") == name_key("tgf-b")
    assert name_key("HCCs") == name_key("HCC")
    assert name_key("SARS-CoV-2") == name_key("SARS-CoV2")
    assert name_key("CYP3A4") != name_key("CYP")


def _input(claim: str, *texts: str) -> CheckInput:
    """The claim with ``texts`` as the windows chosen for it, one sentence each."""
    windows = tuple(Window("1", "", text, 0, len(text), i, i) for i, text in enumerate(texts))
    return CheckInput(claim, (), windows=windows, sentences=tuple(("1", t) for t in texts))
