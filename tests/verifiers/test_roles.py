"""Sentence roles (``verifiers.roles``): a study's aim and methods, and the beliefs its background
reports, are no finding, so the engine sets aside a model contradiction resting on them alone.
Abstract sentences: PubMedQA (MIT); Check-COVID's (CC BY 4.0) where named."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from verifiers import Verdict
from verifiers.engine import FINDING, Verifier
from verifiers.eval.pairs import CountingNLI
from verifiers.nli._base import NLIPair, NLIScores
from verifiers.roles import BELIEF, NEIGHBOUR_THRESHOLD, RoleModel, load_roles, ngrams
from verifiers.training.roles import section_role
from verifiers.windows import make_evidence

AIM = (
    "This study aimed to establish whether an easy and practical intervention, mailing out a "
    "summary of current evidence to surgeons, can change surgeons practice to bring it more in "
    "line with current evidence."
)
METHODS = (
    "Medical records of 220 patients hospitalized for acute diverticulitis between June 1, 2002 "
    "and September 1, 2009 were reviewed."
)
RESULT = "These differences did not achieve statistical significance."
CONCLUSION = (
    "GHD men receiving GH treatment have a mortality rate not different from the background "
    "population."
)


@pytest.mark.parametrize(
    "text",
    [
        AIM,
        METHODS,
        "To evaluate the effect of the 80-hour workweek.",
        # What was done, said outright (PMIDs 19683101, 22302658).
        "In this study, we investigated D-dimer serum level as a diagnostic parameter for acute "
        "appendicitis.",
        "We therefore compared functional status and quality of life for patients treated with "
        "above-knee amputation versus limb-salvage surgery.",
        # An aim said as a purpose, whatever its verb.
        "To characterize the use of cough and cold medicines in young children.",
        "To point out the value of forced dilation in childhood.",
        # "To study" and "we studied" state an aim and a method (PubMedQA 22154448: the claim
        # "no cases of spinal haematoma" was contradicted by this aim, with a comma after its
        # first object that the purpose reading takes for a main clause).
        "To study the risks of haemodynamic instability, and the possible occurrence of spinal "
        "haematoma, meningitis and epidural abscess when epidural analgesia is performed.",
        "We studied 122 patients who underwent emergency surgery of the aorta.",
        "To understand which genes act in implantation, we studied endometrial biopsies.",
        # What a study does, in the present tense or as a review (PMIDs 26852225, 11888773),
        # and an aim in the imperative of a structured abstract (22042121).
        "This study also evaluates the need for adjusting for reporting heterogeneity in the "
        "management of sleep and energy related problems in Japan.",
        "We review our results on surgical treatment of patients with stage I non-small cell "
        "lung carcinoma.",
        "Demonstrate that the rabbit may be used in the training of surgery, in addition to "
        "present its perioperative care.",
        # An outcome defined, not reported (24098953; the fit alone says 0.45).
        "Short-term mortality (i.e. death within 7 and 21 days from treatment) was the primary "
        "outcome.",
        "Main outcome measures were symptomatic intracerebral hemorrhage and mortality at 3 "
        "months.",
    ],
)
def test_aims_and_methods_are_design(text: str) -> None:
    assert load_roles().is_design(text)


@pytest.mark.parametrize(
    "text",
    [
        RESULT,
        CONCLUSION,
        "Mortality was higher in women than in men.",
        "We determined that serum ferritin was higher in the treated group.",
        "We identified 77 genes whose expression the treatment altered.",
        # A purpose clause before a finding of its own, and openers that are no purpose.
        "To achieve walking at one year, a normal motor score was the best predictor.",
        "To date, no trial has compared the two doses in children.",
        # A capitalised verb that opens no aim.
        "Identified genes were enriched in the interferon pathway.",
        # Outcomes reported, not defined (24098953).
        "Secondary outcomes were not different between groups.",
        "Secondary end points were similar in both arms.",
    ],
)
def test_findings_are_not(text: str) -> None:
    assert not load_roles().is_design(text)


def test_a_passage_is_design_only_when_every_sentence_is() -> None:
    roles = load_roles()
    assert roles.states_design_only(f"{AIM} {METHODS}")
    assert not roles.states_design_only(f"{METHODS} {RESULT}")
    assert not roles.states_design_only("")


def test_the_probability_reads_the_ngrams_the_fit_counted() -> None:
    model = RoleModel({"were enrolled": 3.0, "significantly": -2.0}, bias=-1.0, threshold=0.5)
    assert ngrams("Patients were enrolled.") == {
        "patients",
        "were",
        "enrolled",
        "patients were",
        "were enrolled",
    }
    assert model.design_probability("Patients were enrolled.") == pytest.approx(0.8808, abs=1e-4)
    assert model.design_probability("It rose significantly.") == pytest.approx(0.0474, abs=1e-4)


@pytest.mark.parametrize(
    ("label", "role"),
    [
        ("OBJECTIVE", True),
        ("PATIENTS AND METHODS", True),
        ("MAIN OUTCOME MEASURES", True),
        ("RESULTS", False),
        ("CONCLUSIONS", False),
        ("BACKGROUND", False),
        ("METHODS AND RESULTS", None),
        ("BACKGROUND AND AIMS", None),
        ("UNASSIGNED", None),
    ],
)
def test_section_labels_map_to_roles(label: str, role: bool | None) -> None:
    assert section_role(label) is role


CLAIM = "Mailing out a summary of current evidence to surgeons does not change their practice"


def test_a_contradiction_from_the_aim_alone_is_set_aside(contradicting: CountingNLI) -> None:
    evidence = [make_evidence("18708308", "", [AIM])]
    (sentence,) = Verifier(contradicting).verify(f"{CLAIM} [PMID:18708308].", evidence).sentences
    assert contradicting.pairs > 0
    assert sentence.verdict is Verdict.UNSUPPORTED
    (claim,) = sentence.claims
    (set_aside,) = [c for c in claim.checks if c.name == FINDING]
    assert not set_aside.passed and set_aside.pmid == "18708308"
    assert "aim or methods" in set_aside.detail
    assert claim.evidence == ()


def test_a_contradiction_from_a_finding_stands(contradicting: CountingNLI) -> None:
    evidence = [make_evidence("18708308", "", [RESULT])]
    answer = "The differences between the groups achieved statistical significance [PMID:18708308]."
    (sentence,) = Verifier(contradicting).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.CONTRADICTED
    assert all(c.name != FINDING for claim in sentence.claims for c in claim.checks)


class ContradictsTheMethods:
    """Contradicts a premise holding the methods sentence, most surely when the result follows
    it (so that window decides), as the small model reads a study's design against its
    conclusion; neutral on anything else. Keeps the premises it was asked about."""

    name = "scripted"
    version = "contradicts-the-methods"

    def __init__(self) -> None:
        self.premises: list[str] = []

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        self.premises += [p.premise for p in pairs]
        return [self._scores(p.premise) for p in pairs]

    def _scores(self, premise: str) -> NLIScores:
        if METHODS not in premise:
            return NLIScores(0.0, 1.0, 0.0)
        return NLIScores(0.0, 0.01, 0.99) if RESULT in premise else NLIScores(0.05, 0.15, 0.8)


def test_a_contradiction_the_methods_make_and_the_rest_does_not_is_set_aside() -> None:
    nli = ContradictsTheMethods()
    evidence = [make_evidence("20712979", "", [METHODS, RESULT])]
    answer = "Colonoscopy does not change the management of acute diverticulitis [PMID:20712979]."
    (sentence,) = Verifier(nli).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.UNSUPPORTED
    (claim,) = sentence.claims
    (set_aside,) = [c for c in claim.checks if c.name == FINDING]
    assert "rests on the study's aim or methods" in set_aside.detail
    # The methods and the rest of the window were each read alone.
    assert METHODS in nli.premises and RESULT in nli.premises


class ContradictsTheResult(ContradictsTheMethods):
    """Contradicts any premise holding the result, alone or after the methods."""

    def _scores(self, premise: str) -> NLIScores:
        return NLIScores(0.01, 0.02, 0.97) if RESULT in premise else NLIScores(0.0, 1.0, 0.0)


def test_a_contradiction_the_rest_of_the_window_makes_alone_stands() -> None:
    evidence = [make_evidence("20712979", "", [METHODS, RESULT])]
    answer = "The differences between the groups achieved statistical significance [PMID:20712979]."
    (sentence,) = Verifier(ContradictsTheResult()).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.CONTRADICTED
    assert all(c.name != FINDING for claim in sentence.claims for c in claim.checks)


# PubMedQA 27146470: the cohort, then how non-adherence was defined (P(design) 0.62 alone).
COHORT = (
    "A prospective cohort of 481 newly confirmed TB patients from three counties in western "
    "China were enrolled during June to December 2012 and was followed until June 2013."
)
DEFINED = (
    "Patients who missed at least one dose of drugs or one follow-up re-examination during the "
    "treatment course were deemed as non-adherent."
)


def test_a_sentence_next_to_a_design_sentence_needs_less_to_be_design() -> None:
    roles = load_roles()
    assert roles.is_design(COHORT) and not roles.is_design(DEFINED)
    assert roles.design_probability(DEFINED) >= NEIGHBOUR_THRESHOLD
    assert roles.split(f"{COHORT} {DEFINED}") == ((COHORT, DEFINED), ())
    assert roles.states_design_only(f"{COHORT} {DEFINED}")
    # Alone, or beside a finding, it is read on its own merits.
    assert roles.split(DEFINED) == ((), (DEFINED,))
    assert roles.split(f"{RESULT} {DEFINED}") == ((), (RESULT, DEFINED))


# PubMedQA 11438275: the belief the study answers, then how it measured.
BELIEVED = (
    "It is generally believed that positioning of the patient in a head-down tilt (Trendelenberg "
    "position) decreases the likelihood of a venous air embolism during liver resection."
)
MEASURED = (
    "The physiological effect of variation in horizontal attitude on central and hepatic venous "
    "pressure was measured in 10 patients during liver surgery."
)


@pytest.mark.parametrize(
    "text",
    [
        BELIEVED,
        # PubMedQA 10798511, 17051586.
        "Physical examination to detect abdominal injuries has been considered unreliable in "
        "alcohol-intoxicated trauma patients.",
        "Several studies have suggested a protective effect of folic acid (FA) on congenital "
        "heart anomalies.",
        "Down syndrome (DS) infants are known to have a high frequency of heart anomalies.",
        "It has been proposed that statins lower the risk of sepsis.",
        "Little is known about the role pets can play in the spread of the disease.",
        # An open question is no finding either (PubMedQA 26304701: it contradicted "education
        # lowered state anxiety", the trial's own result).
        "The effect of preoperative education on anxiety and postoperative outcomes of cardiac "
        "surgery patients remains unclear.",
        "The role of early revascularization in cardiogenic shock remains controversial.",
        # What is new about the study is no finding (PubMedQA 19108857: it contradicted "The
        # case report describes a seven-year-old girl with cerebro-mediastinal tuberculosis").
        "To our knowledge the occurrence of cerebro-mediastinal tuberculosis in an "
        "immuno-competent child has not been previously described.",
        "Such a mutation has never been previously reported in adults.",
    ],
)
def test_a_belief_of_the_background_is_no_finding(text: str) -> None:
    assert BELIEF.search(text)
    assert load_roles().split(text) == ((text,), ())


@pytest.mark.parametrize(
    "text",
    [
        RESULT,
        CONCLUSION,
        # Check-COVID: a finding in the past tense that names what was known of one person.
        "Among 61 persons who attended a March 10 choir practice at which one person was known "
        "to be symptomatic, 53 cases were identified.",
        # Other studies' findings, stated as found (HealthVer's evidence refutes with these).
        "Several studies demonstrated the role of vitamin D in reducing the risk of acute viral "
        "respiratory tract infections and pneumonia.",
        "Patients were considered responders when their score fell by half.",
    ],
)
def test_a_finding_is_no_belief(text: str) -> None:
    assert not BELIEF.search(text)


def test_a_contradiction_from_the_belief_the_study_answers_is_set_aside(
    contradicting: CountingNLI,
) -> None:
    evidence = [make_evidence("11438275", "", [BELIEVED, MEASURED])]
    answer = (
        "The change in patient positioning alone during liver surgery does not affect the risk "
        "of venous air embolism [PMID:11438275]."
    )
    (sentence,) = Verifier(contradicting).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.UNSUPPORTED
    (claim,) = sentence.claims
    (set_aside,) = {c.detail for c in claim.checks if c.name == FINDING}
    assert "a belief its background reports" in set_aside
