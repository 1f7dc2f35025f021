"""A value the evidence states, but for other words than the claim's: the other arm's rate, the
other measure's value (``misattributed_number``), with its unit or as a bare number ("OR =
2.5"). Evidence sentences: PubMedQA 25156467, 23791827, 18496363, 24799031, 17259061,
28006766, 25406780, 21864397, 23831910 and 27394685 (MIT)."""

from __future__ import annotations

import pytest

from tests.verifiers.fixed_nli import ENTAILS, FixedNLI
from verifiers import Verdict
from verifiers.checks.numbers import MISATTRIBUTED, NUMBERS, check_numbers
from verifiers.engine import Verifier
from verifiers.windows import make_evidence

EXTUBATION = (
    "25156467",
    "Intraoperative extubation was achieved in 71% of the cases and early extubation (≤ 24 "
    "hours) was achieved in 89% of the cases. Early extubation was associated with lower "
    "mortality (1% vs 9%, P<.001) and a lower rate of reintubation (4% vs 23%, P<.001) "
    "compared with delayed extubation.",
)
NEUTROPENIA = (
    "23791827",
    "High-risk patients were more likely to have a severe complication (10% versus 50%, "
    "p=0.0003), multiple severe complications (3% versus 20%, p=0.0278), ICU admission (2% "
    "versus 40%, p<0.0001), overall mortality (2% versus 15%, p=0.0417), and death due to "
    "neutropenic fever (0% versus 15%, p=0.0124).",
)

# Values given "respectively": to a list after them, or before them.
RISKS = (
    "18496363",
    "Female gender was independently associated with a 43% and 23% lower risk of multiple "
    "organ failure and nosocomial infection, respectively.",
)
LESIONS = (
    "24799031",
    "The 730-day cumulative developments of vascularization in hypointense, isointense, and "
    "hyperintense lesions were 17%, 30%, and 40%, respectively.",
)
# A word before a head the other arm's words hold bare is a word that arm left out ("skin care
# protocol" ... "the protocol"), no label of its own.
SKIN_CARE = (
    "25406780",
    "The control group received the skin care protocol every 12 hours and the interventional "
    "group received the protocol every 6 hours; both groups also received it as needed.",
)

# Bare numbers: odds and hazard ratios.
SMOKING = (
    "17259061",
    "Analyses using a measure of smoking prevalence as the dependent variable yielded similar "
    "results (partial restriction: OR = 1.5, 95% CI = 1.0-2.2; no restriction: OR = 2.5, 95% "
    "CI = 1.7-3.7).",
)
KI67 = (
    "28006766",
    "Furthermore, multivariate analysis suggested that Ki-67 expression was an independent "
    "prognostic factor for CSS (hazard ratio, HR=3.196) and DFS (HR=3.517) in UTUC patients.",
)


@pytest.mark.parametrize(
    ("claim", "evidence", "given_to"),
    [
        # The other measure's value: 23% was the rate of reintubation.
        ("Early extubation was associated with a mortality of 23%.", EXTUBATION, "1%, 9%"),
        # The other arm's: 71% were extubated in the operating room.
        ("Early extubation was achieved in 71% of the cases.", EXTUBATION, "89%"),
        # A label before its values: 50% had a severe complication, not an ICU admission.
        ("ICU admission was needed by 50% of high-risk patients.", NEUTROPENIA, "40%"),
        ("Women had a 23% lower risk of multiple organ failure.", RISKS, "43%"),
        ("Vascularization developed in 40% of isointense lesions.", LESIONS, "30%"),
        ("Partial restriction went with an odds ratio of 2.5 for smoking.", SMOKING, "1.5"),
        ("Ki-67 expression predicted CSS with a hazard ratio of 3.517.", KI67, "3.196"),
    ],
)
def test_a_value_given_to_other_words_is_misattributed(
    claim: str, evidence: tuple[str, str], given_to: str
) -> None:
    result = check_numbers(claim, [evidence])
    assert result is not None
    assert (result.name, result.passed) == (MISATTRIBUTED, False)
    assert given_to in result.detail


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The reintubation rate was 23% with delayed extubation.", EXTUBATION),
        ("With early extubation, 4% of the infants were reintubated.", EXTUBATION),
        ("Mortality was 1% with early extubation and 9% with delayed extubation.", EXTUBATION),
        ("Early extubation within 24 hours was achieved in 89% of the cases.", EXTUBATION),
        ("ICU admission was needed by 40% of high-risk patients.", NEUTROPENIA),
        # No words of the claim's own to place: nothing to misread.
        ("Overall mortality reached 15%.", NEUTROPENIA),
        ("Women had a 23% lower risk of nosocomial infection.", RISKS),
        ("Vascularization developed in 30% of isointense lesions.", LESIONS),
        ("Hyperintense lesions were vascularized in 40% of cases.", LESIONS),
        ("The experimental group received the skin protocol every 6 hours.", SKIN_CARE),
    ],
)
def test_a_value_given_to_the_claims_words_passes(claim: str, evidence: tuple[str, str]) -> None:
    result = check_numbers(claim, [evidence])
    assert result is not None
    assert (result.name, result.passed) == (NUMBERS, True)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("With no restriction, the odds ratio for smoking was 2.5.", SMOKING),
        ("Partial restriction had an odds ratio of 1.5 (95% CI 1.0-2.2).", SMOKING),
        ("Ki-67 expression predicted DFS with a hazard ratio of 3.517.", KI67),
    ],
)
def test_a_bare_number_given_to_the_claims_words_passes(
    claim: str, evidence: tuple[str, str]
) -> None:
    # A bare number the evidence states passes silently: no result at all.
    assert check_numbers(claim, [evidence]) is None


def test_another_sentence_giving_the_value_to_the_claims_words_passes() -> None:
    # 23% stated twice: once for reintubation, once (here) for what the claim names.
    stated_again = ("1", "Mortality after delayed extubation was 23% in the first cohort.")
    claim = "Mortality after delayed extubation was 23%."
    alone = check_numbers(claim, [EXTUBATION])
    assert alone is not None and alone.name == MISATTRIBUTED
    result = check_numbers(claim, [EXTUBATION, stated_again])
    assert result is not None and result.passed


def test_a_misattributed_value_withholds_support_in_the_engine() -> None:
    pmid, text = EXTUBATION
    answer = f"Early extubation was associated with a mortality of 23% [PMID:{pmid}]."
    evidence = [make_evidence(pmid, "", [text])]
    (sentence,) = Verifier(FixedNLI(ENTAILS)).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.UNSUPPORTED
    failed = [c.name for claim in sentence.claims for c in claim.checks if not c.passed]
    assert MISATTRIBUTED in failed


# A label the claim spells out: "overall survival" is the "OS" its abstract defines.
SURVIVAL = (
    "21864397",
    "Univariate and multivariate survival analyses of post-metastasis survival (PMS) and overall "
    "survival (OS) were carried out to determine the prognostic factors.",
    "The median PMS (45.6 months vs. 23.7 months) and OS (73.7 months vs. 46.2 months) of "
    "patients treated with combined therapy was significantly longer than that of those treated "
    "with chemotherapy alone (P<0.001).",
)


def test_a_label_spelled_out_is_the_short_form_its_abstract_defines() -> None:
    pmid, defined, results = SURVIVAL
    claim = "Combined therapy gave a median overall survival of 73.7 months."
    # Read without the definition, "median" is the PMS's word and nothing names the OS.
    alone = check_numbers(claim, [(pmid, results)])
    assert alone is not None and alone.name == MISATTRIBUTED
    forms = {pmid: {"os": frozenset({"overall", "survival"})}}
    result = check_numbers(claim, [(pmid, results)], forms)
    assert result is not None and (result.name, result.passed) == (NUMBERS, True)
    # The engine reads the abstract's definitions itself.
    answer = f"{claim[:-1]} [PMID:{pmid}]."
    evidence = [make_evidence(pmid, "", [defined, results])]
    (sentence,) = Verifier(FixedNLI(ENTAILS)).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # A mean and its spread are one group, and the claim's unit ("minutes") names none.
        (
            "The mean time per antegrade DBE was 107.4 minutes.",
            (
                "23831910",
                "The mean time per antegrade DBE was 107.4±30.0 minutes with a distance of "
                "318.4±152.9 cm reached past the pylorus.",
            ),
        ),
        # "observer 1" numbers an observer: no percentage, though listed before one.
        (
            "For observer 2, the mean D1/D2 was 94%.",
            (
                "27394685",
                "The mean D1/D2 was 95 ± 4 % for observer 1 and 94 ± 6 % for observer 2.",
            ),
        ),
    ],
)
def test_a_spread_and_a_numbered_noun_are_no_other_group(
    claim: str, evidence: tuple[str, str]
) -> None:
    result = check_numbers(claim, [evidence])
    assert result is not None and (result.name, result.passed) == (NUMBERS, True)
