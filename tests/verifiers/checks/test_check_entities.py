"""The entity check on real abstracts (SciFact corpus): a claim's gene symbols and drug names
must be in the evidence that speaks to it, spelled out or as the short form the abstract
defines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from verifiers import Verdict, Verifier
from verifiers.checks.entities import check_cited_term, check_entities, check_generic_names
from verifiers.checks.names import drugs, symbols
from verifiers.nli import NLIPair, NLIScores
from verifiers.windows import WindowSelector, make_evidence

FIXTURE = Path(__file__).parents[2] / "fixtures" / "verification" / "evidence.jsonl"
RECORDS = {r["pmid"]: r for r in map(json.loads, FIXTURE.read_text().splitlines())}


def _sentences(pmid: str) -> list[str]:
    sentences: list[str] = RECORDS[pmid]["sentences"]
    return sentences


def test_symbols_and_drugs_as_abstracts_write_them() -> None:
    text = "WT CD4(+) T cells, CX3CR1-deficient mice, IL-6, SARS-CoV-2, HbA1c and lymphoma-2."
    assert [s for _, _, s in symbols(text)] == ["CD4", "CX3CR1", "IL-6", "SARS-CoV-2", "HbA1c"]
    assert [d for _, _, d in drugs("Ibuprofen, then atorvastatin or trastuzumab.")] == [
        "Ibuprofen",
        "atorvastatin",
        "trastuzumab",
    ]


def test_a_swapped_gene_is_not_in_the_evidence_for_the_claim() -> None:
    asthma = _sentences("21366394")  # CX3CR1 in allergic asthma
    window = next(s for s in asthma if "CX3CR1-deficient mice" in s)
    evidence = [("21366394", window)]
    kept = check_entities(window, evidence)
    assert kept is not None and kept.passed and kept.pmid == "21366394"
    swapped = window.replace("CX3CR1", "CD4", 1)
    failed = check_entities(swapped, evidence)
    assert failed is not None and not failed.passed and "CD4" in failed.detail


def test_a_greek_letter_spelled_in_latin_names_the_same_symbol() -> None:
    evidence = [("x", "Irradiation induced phosphorylation of BRCA1, Chk2 and \u03b3H2AX.")]
    same = check_entities("Irradiation phosphorylated gH2AX and BRCA1.", evidence)
    assert same is not None and same.passed
    other = check_entities("Irradiation phosphorylated gH2AZ and BRCA1.", evidence)
    assert other is not None and not other.passed


def test_a_name_spelled_another_way_is_the_same_name() -> None:
    # PubMedQA 22154448 (MIT) writes "ropivacain"; an answer writes the INN, "ropivacaine".
    evidence = [("22154448", "The median dose of ropivacain given peroperatively was 40 mg.")]
    same = check_entities("The median intraoperative ropivacaine dose was 40 mg.", evidence)
    assert same is not None and same.passed
    other = check_entities("The median intraoperative bupivacaine dose was 40 mg.", evidence)
    assert other is not None and not other.passed
    sulphate = [("x", "Magnesium sulphate and oestradiol were given.")]
    american = check_entities("Estradiol was given with magnesium sulfate.", sulphate)
    assert american is None or american.passed


def test_a_scale_or_test_written_out_names_its_short_form() -> None:
    # PubMedQA 19142546 (MIT) writes the class out and never defines "NYHA".
    evidence = [
        (
            "19142546",
            "The New York Heart Association functional class improved to class I in 40% and "
            "class II in 43% of patients postoperatively (p<0.05).",
        )
    ]
    claim = "Symptoms improved: 40% of patients reached NYHA class I and 43% class II."
    assert check_entities(claim, evidence) is None  # a generic name: not looked for here
    assert check_generic_names(claim, evidence) is None  # named, spelled out
    other = [("x", "The functional class improved to class I in 40% of patients.")]
    failed = check_generic_names(claim, other)
    assert failed is not None and not failed.passed and "NYHA" in failed.detail


def test_a_short_form_the_abstract_defines_counts_spelled_out() -> None:
    record = RECORDS["1568684"]  # chenodeoxycholic acid (CDCA) and brown adipose tissue (BAT)
    evidence = make_evidence(record["pmid"], record["title"], record["sentences"])
    forms = {evidence.pmid: WindowSelector().abbreviations(evidence)}
    spelled_out = [(evidence.pmid, "Oral chenodeoxycholic acid increased brown fat activity.")]
    claim = "CDCA increased brown fat activity."
    result = check_entities(claim, spelled_out, forms)
    assert result is not None and result.passed
    without_forms = check_entities(claim, spelled_out)
    assert without_forms is not None and not without_forms.passed


def test_generic_molecules_and_plain_sentences_name_no_entity() -> None:
    assert check_entities("DNA damage was higher in smokers.", [("1", "Smokers differ.")]) is None
    assert check_entities("Whole-body energy expenditure rose.", [("1", "It fell.")]) is None


# PubMedQA 10749257 (MIT): the agency spelled out, never abbreviated.
MQSA = (
    "The United States Food and Drug Administration implemented federal regulations governing "
    "mammography under the Mammography Quality Standards Act (MQSA) of 1992"
)


def test_a_generic_name_must_be_in_the_cited_evidence_as_written_or_spelled_out() -> None:
    evidence = [("10749257", MQSA)]
    assert check_generic_names("The FDA regulates mammography under the MQSA.", evidence) is None
    failed = check_generic_names("The NIH regulates mammography under the MQSA.", evidence)
    assert failed is not None and not failed.passed
    assert failed.detail == "not in the cited evidence: NIH"
    # Named in another of the cited texts is named; a claim without one reports nothing.
    assert check_generic_names("The NIH funded it.", [*evidence, ("2", "NIH grants")]) is None
    assert check_generic_names("Mammography quality improved.", evidence) is None


FINDING = "Pembrolizumab improved overall survival in advanced melanoma."
ARMS = "Patients previously treated with ipilimumab were eligible."


class EntailsTheFinding:
    """Entails a premise that is the finding alone; neutral on anything else."""

    name = "finding"
    version = "entails-the-finding"

    def __init__(self, finding: str = FINDING) -> None:
        self.finding = finding

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        return [
            NLIScores(0.97, 0.02, 0.01) if p.premise.strip() == self.finding else NLIScores(0, 1, 0)
            for p in pairs
        ]


def _supported(claim: str) -> tuple[Verdict, list[str]]:
    evidence = [make_evidence("1", "Anti-PD-1 therapy", [FINDING, ARMS])]
    [sentence] = Verifier(EntailsTheFinding()).verify(f"{claim} [PMID:1].", evidence).sentences
    failed = [c.detail for c in sentence.checks if c.name == "entity" and not c.passed]
    return sentence.verdict, failed


def test_a_name_only_another_window_holds_does_not_ride_on_the_deciding_windows_support() -> None:
    # The model supports the claim from the finding; ipilimumab is only in the other sentence.
    verdict, failed = _supported("Ipilimumab improved overall survival in advanced melanoma")
    assert verdict is Verdict.UNSUPPORTED
    assert failed == ["not in the evidence for this claim: Ipilimumab"]
    verdict, failed = _supported("Pembrolizumab improved overall survival in advanced melanoma")
    assert verdict is Verdict.SUPPORTED and not failed


def test_a_generic_name_no_cited_text_holds_withholds_support() -> None:
    # Not in the window that decided, nor anywhere in the record: the claim says what the
    # evidence does not. In the record's title it is the evidence's.
    verdict, failed = _supported("Pembrolizumab improved overall survival in melanoma in an RCT")
    assert verdict is Verdict.UNSUPPORTED
    assert failed == ["not in the cited evidence: RCT"]
    titled = make_evidence("1", "A randomized controlled trial of PD-1", [FINDING, ARMS])
    claim = "Pembrolizumab improved overall survival in melanoma in an RCT [PMID:1]."
    [sentence] = Verifier(EntailsTheFinding()).verify(claim, [titled]).sentences
    assert sentence.verdict is Verdict.SUPPORTED


def test_a_section_heading_is_no_name_the_abstract_gives() -> None:
    # A structured abstract's sentence opens with its heading; a claim that puts the heading
    # where the gene was is not borne out by it ("RESULTS ... -deficient mice").
    window = next(s for s in _sentences("21366394") if "CX3CR1-deficient mice" in s)
    labelled = [("21366394", f"RESULTS: {window}")]
    assert check_entities(window, labelled).passed  # type: ignore[union-attr]
    failed = check_entities(window.replace("CX3CR1", "RESULTS", 1), labelled)
    assert failed is not None and not failed.passed and "RESULTS" in failed.detail


def test_a_word_written_in_capitals_for_emphasis_names_nothing() -> None:
    # "IMPORTANT:" and "does NOT" in an answer were read as names the abstract never gives, and
    # withheld support from a sentence copied from it; a gene keeps its name ("CX3CR1").
    window = next(s for s in _sentences("21366394") if "CX3CR1-deficient mice" in s)
    evidence = [("21366394", window)]
    shouted = f"IMPORTANT: {window} This does NOT ALWAYS hold."
    assert [name for _, _, name in symbols(shouted)] == [name for _, _, name in symbols(window)]
    assert check_entities(f"IMPORTANT: {window}", evidence).passed  # type: ignore[union-attr]
    swapped = check_entities(f"NOTE: {window.replace('CX3CR1', 'CCR7', 1)}", evidence)
    assert swapped is not None and not swapped.passed and swapped.detail.endswith("CCR7")


def test_a_cited_bare_term_is_read_word_by_word_and_conjunct_by_conjunct() -> None:
    window = next(s for s in _sentences("21366394") if "airway smooth muscle" in s)
    evidence = [("21366394", window)]
    stated = check_cited_term("airway smooth muscles and lung endothelium", evidence)
    assert stated is not None and stated.passed  # a plural, two terms
    missing = check_cited_term("airway smooth muscle, lung muscle and liver", evidence)
    assert missing is not None and not missing.passed
    assert missing.detail.endswith("lung muscle, liver")  # both words stand apart, never so


# Check-COVID's corpus (MIT).
SALIVA = (
    "We developed an assay that detects single copies of SARS-CoV-2 virus directly from saliva "
    "and swab samples in 30 min"
)


def test_a_name_spelled_otherwise_or_by_its_pathogen_is_named() -> None:
    evidence = [("cc", SALIVA)]
    for claim in ("A saliva assay detects COVID-19.", "A saliva assay detects COVID19."):
        named = check_entities(claim, evidence)
        assert named is not None and named.passed, claim  # the disease SARS-CoV-2 causes
    spelled = [("x", "The 2019 novel coronavirus was detected in saliva within 30 min.")]
    assert check_entities("Saliva tests detect COVID-19.", spelled).passed  # type: ignore[union-attr]
    family = [("x", "Human coronaviruses were detected in saliva within 30 min.")]
    assert not check_entities("Saliva tests detect COVID-19.", family).passed  # type: ignore[union-attr]
    # A short form the claim defines in brackets stands for its long form, no other name.
    defined = check_entities("The syndrome in adults (SARS-CoV-2) follows COVID-19.", spelled)
    assert defined is not None and not defined.passed and defined.detail.endswith("SARS-CoV-2")
    other = check_entities("A saliva assay detects MERS-CoV.", evidence)
    assert other is not None and not other.passed and other.detail.endswith("MERS-CoV")
    written = check_entities("IL-6 and TNF rose.", [("x", "Serum IL6 and TNF rose.")])
    assert written is not None and written.passed
    # SciFact 21366394 (CC BY) writes the T helper subset "T(H)2"; answers write "Th2".
    window = next(s for s in _sentences("21366394") if "promoted T(H)2 survival" in s)
    th2 = check_entities("CX3CR1 signaling promoted Th2 cell survival.", [("21366394", window)])
    assert th2 is not None and th2.passed
    th17 = check_entities("CX3CR1 signaling promoted Th17 cell survival.", [("21366394", window)])
    assert th17 is not None and not th17.passed and th17.detail.endswith("Th17")


def test_a_headline_in_capitals_names_only_what_has_a_digit() -> None:
    evidence = [("cc", SALIVA)]
    headline = check_entities("SALIVA TESTS DETECT COVID-19 WITHIN 30 MINUTES", evidence)
    assert headline is not None and headline.passed and headline.detail.endswith("COVID-19")
    wrong = check_entities("SALIVA TESTS DETECT H1N1 WITHIN 30 MINUTES", evidence)
    assert wrong is not None and not wrong.passed and wrong.detail.endswith("H1N1")
    # One word in capitals among others is still read as a name.
    assert not check_entities("Saliva tests detect MERS within 30 min.", evidence).passed  # type: ignore[union-attr]


def test_a_short_form_the_claim_spells_out_is_named_by_its_long_form() -> None:
    evidence = [("x", "Acute respiratory distress syndrome was the leading cause of death.")]
    claim = "ARDS (acute respiratory distress syndrome) was the leading cause of death."
    defined = WindowSelector().defined_in(claim)
    assert check_entities(claim, evidence, None, defined).passed  # type: ignore[union-attr]
    # A long form of one word is no spelling out: the detector fits "retinopathy" to "ROP".
    retina = [("x", "Proliferative diabetic retinopathy progressed in 12 eyes.")]
    claim = "Proliferative diabetic retinopathy (ROP) progressed in 12 eyes."
    defined = WindowSelector().defined_in(claim)
    assert defined == {"rop": frozenset({"retinopathi"})}  # as content_tokens stems it
    assert not check_entities(claim, retina, None, defined).passed  # type: ignore[union-attr]
    # Where the abstract defines the short form, its long form is the one read.
    forms = {"x": {"ards": frozenset({"adult", "respiratory", "distres", "syndrom"})}}
    claim = "ARDS (acute respiratory distress syndrome) was the leading cause of death."
    defined = WindowSelector().defined_in(claim)
    assert not check_entities(claim, evidence, forms, defined).passed  # type: ignore[union-attr]


# SciFact corpus doc 4709641 (ODC-By), its second sentence.
IPSC = (
    "Using human neurons derived from induced pluripotent stem cells that expressed "
    "apolipoprotein E4 (ApoE4), a variant of the APOE gene product and the major genetic risk "
    "factor for AD, we demonstrated that ApoE4-expressing neurons had higher levels of tau "
    "phosphorylation, unrelated to their increased production of amyloid-β (Aβ) peptides, and "
    "that they displayed GABAergic neuron degeneration."
)
# SciFact corpus doc 7639744 (ODC-By): one sentence names both cancers.
LUNG = (
    "Life tables were used to model five year survival for early stage non-small cell lung "
    "cancer and limited stage small cell lung cancer, using death rates for continuing smokers "
    "and quitters obtained from this review."
)


def test_a_short_form_nothing_defines_is_named_by_the_words_its_initials_give() -> None:
    """An answer abbreviates what its abstract spells out and never defines: "iPSC" for
    "induced pluripotent stem cells"."""
    claim = "ApoE4 raised tau phosphorylation in iPSC-derived neurons."
    assert check_entities(claim, [("4709641", IPSC)]).passed  # type: ignore[union-attr]
    for claim in (
        "Quitting smoking improved survival in early stage NSCLC.",
        "Quitting smoking improved survival in limited stage SCLC.",
    ):
        assert check_entities(claim, [("7639744", LUNG)]).passed  # type: ignore[union-attr]
    # Only a phrase that starts a word: "SCLC" is not the end of "non-small cell lung cancer".
    [non_small] = [("7639744", "Survival in early stage non-small cell lung cancer was modelled.")]
    for claim, named in (
        ("Quitting smoking improved survival in early stage SCLC.", False),
        ("Quitting smoking improved survival in early stage NSCLC.", True),
    ):
        assert check_entities(claim, [non_small]).passed is named  # type: ignore[union-attr]
    # Content words in a row, each in lower case or capitalised: no stop word, comma or short
    # form of its own spells a letter; a link word ("of", "and", "in") may stand between them.
    for text, named in (
        ("Chronic obstructive pulmonary disease was common.", True),
        ("Behavioural and psychological symptoms of dementia were common.", False),
        ("Chronic, obstructive pulmonary disease was common.", False),
        ("Chronic OPD was common.", False),
        ("Chronic or pulmonary disease was common.", False),
    ):
        assert check_entities("COPD was common.", [("x", text)]).passed is named  # type: ignore[union-attr]
    dementia = [("x", "Behavioural and psychological symptoms of dementia were common.")]
    assert check_entities("BPSD were common.", dementia).passed  # type: ignore[union-attr]
    # Three letters spell words in a row by chance ("haploinsufficient tumour suppressor").
    tumour = [("x", "Cdh1 functions as a haploinsufficient tumour suppressor.")]
    assert not check_entities("HTS was common.", tumour).passed  # type: ignore[union-attr]
    # Where the abstract defines the short form, its long form is the one read.
    forms = {"x": {"copd": frozenset({"childhood", "obstruct", "pulmonary", "diseas"})}}
    chronic = [("x", "Chronic obstructive pulmonary disease was common.")]
    assert not check_entities("COPD was common.", chronic, forms).passed  # type: ignore[union-attr]


# SciFact corpus doc 24906548 (ODC-By), its last sentence.
EPSILON4 = (
    "Overall, the findings suggest that the APOE epsilon4 allele is not consistently related to "
    "the outcomes of mild TBI in children."
)


def test_an_allele_written_with_its_greek_letter_is_the_same_name() -> None:
    """Abstracts write "APOE ε4" or "APOE epsilon4" where answers write "APOE4"."""
    claim = "The APOE4 allele is not consistently related to the outcomes of mild TBI in children."
    for text in (EPSILON4, EPSILON4.replace("epsilon4", "ε4"), EPSILON4.replace(" epsilon", "-ε")):
        assert check_entities(claim, [("24906548", text)]).passed  # type: ignore[union-attr]
    for other in ("APOE2", "APOE3"):
        swapped = claim.replace("APOE4", other)
        assert not check_entities(swapped, [("24906548", EPSILON4)]).passed  # type: ignore[union-attr]
    # Through the engine: no check finds another name in its place.
    evidence = [make_evidence("24906548", "", [EPSILON4])]
    verifier = Verifier(EntailsTheFinding(EPSILON4))
    [sentence] = verifier.verify(f"{claim[:-1]} [PMID:24906548].", evidence).sentences
    assert sentence.verdict is Verdict.SUPPORTED, sentence.checks


def test_the_engine_reads_the_short_forms_a_claim_spells_out() -> None:
    finding = "Botulinum toxin relieved spasticity in most patients."
    evidence = [make_evidence("1", "Deaths in intensive care", [finding, ARMS])]
    verifier = Verifier(EntailsTheFinding(finding))
    spelled = "Botulinum toxin (BTX) relieved spasticity in most patients [PMID:1]."
    [sentence] = verifier.verify(spelled, evidence).sentences
    assert sentence.verdict is Verdict.SUPPORTED
    bare = "BTX relieved spasticity in most patients [PMID:1]."  # its initials spell no "x"
    [sentence] = verifier.verify(bare, evidence).sentences
    assert sentence.verdict is Verdict.UNSUPPORTED
