"""A contradiction the small model reads into a value restated in words of the claim's own
("about three quarters" against "267 (74%)") is read once more with the evidence's value
written in, where the numbers check found the value restated; the claim gets the verdict that
reading gets. A changed value is never reread. Abstract sentence: PubMedQA 18594195 (MIT)."""

from __future__ import annotations

import re

import pytest

from tests.verifiers.fixed_nli import ENTAILS, FixedNLI, ScriptedNLI
from verifiers import Verdict
from verifiers.checks.numbers import in_evidence_words
from verifiers.engine import NUMBERS_REREAD, Verifier
from verifiers.windows import make_evidence

PMID = "18594195"
EVIDENCE = [(PMID, "Of the 361 patients invited, 267 (74%) refused participation.")]
RESTATED = f"About three quarters of the invited patients declined to take part [PMID:{PMID}]."
CHANGED = f"About 90% of the invited patients declined to take part [PMID:{PMID}]."


def reads_words_as_changed(stubborn: bool = False) -> ScriptedNLI:
    """The artifact the rule answers: contradicts a claim that writes a share in words (or
    another share), entails one written as the evidence writes it (or, with ``stubborn``,
    contradicts that too)."""
    return ScriptedNLI(
        lambda pair: stubborn or bool(re.search(r"quarters|90%", pair.hypothesis)),
        "reads-words-as-changed",
    )


def verify(answer: str, nli: ScriptedNLI) -> tuple[Verdict, list[str]]:
    evidence = [make_evidence(PMID, "", [EVIDENCE[0][1]])]
    (sentence,) = Verifier(nli).verify(answer, evidence).sentences
    reread = [
        c.detail for claim in sentence.claims for c in claim.checks if c.name == NUMBERS_REREAD
    ]
    return sentence.verdict, reread


@pytest.mark.parametrize(
    ("claim", "reworded"),
    [
        ("About three quarters of the patients refused.", "About 74% of the patients refused."),
        ("About one in four patients refused.", None),  # 25% is no restatement of 74%
        ("Three hundred and sixty-one patients were invited.", "361 patients were invited."),
        ("Of 361 patients, 74% refused.", None),  # written as the evidence writes it
        ("About three quarters of 300 patients refused.", None),  # 300 patients: unstated
        # "Of the 361 patients invited, 267 (74%) refused": 267 patients, counted before the verb
        ("About three quarters of 267 patients refused.", "About 74% of 267 patients refused."),
        ("About 90% of the patients refused.", None),  # a changed value
    ],
)
def test_the_evidence_s_values_written_in(claim: str, reworded: str | None) -> None:
    assert in_evidence_words(claim, EVIDENCE) == reworded


def test_a_value_restated_in_words_is_read_with_the_evidence_s_value() -> None:
    nli = reads_words_as_changed()
    verdict, reread = verify(RESTATED, nli)
    assert verdict is Verdict.SUPPORTED
    assert len(reread) == 1 and "About 74% of the invited patients" in reread[0]
    assert nli.pairs[-1].hypothesis.startswith("About 74% of the invited patients")


def test_a_value_the_evidence_writes_in_words_is_read_in_digits() -> None:
    # PubMedQA 14599616 (MIT): the model contradicted "39 cases" against "Thirty-nine cases".
    evidence = [make_evidence("14599616", "", ["Thirty-nine cases of lymphedema were found."])]
    nli = ScriptedNLI(lambda pair: "Thirty-nine" in pair.premise, "reads-words-as-changed")
    answer = "The trial found 39 cases of lymphedema [PMID:14599616]."
    (sentence,) = Verifier(nli).verify(answer, evidence).sentences
    assert sentence.verdict is Verdict.SUPPORTED
    assert nli.pairs[-1].premise == "39 cases of lymphedema were found."
    assert [c.name for claim in sentence.claims for c in claim.checks if c.passed].count(
        NUMBERS_REREAD
    ) == 1


def test_a_contradiction_the_reread_keeps_stands() -> None:
    verdict, reread = verify(RESTATED, reads_words_as_changed(stubborn=True))
    assert verdict is Verdict.CONTRADICTED and reread == []


def test_a_changed_value_is_not_reread() -> None:
    nli = reads_words_as_changed()
    verdict, reread = verify(CHANGED, nli)
    assert verdict is Verdict.CONTRADICTED and reread == []
    assert all("74%" not in p.hypothesis for p in nli.pairs)


def test_a_bare_number_the_abstract_states_outside_the_windows_is_stated() -> None:
    # PubMedQA 22683044 (MIT): the windows chosen for the claim did not hold its 18, the
    # abstract did; the whole abstract's silence (nothing to report) stands.
    abstract = (
        "Some studies suggest that open access articles are more often cited than non-open "
        "access articles. However, the relationship between open access and citations count in "
        "a discipline such as intensive care medicine has not been studied to date. We "
        "evaluated a total of 161 articles (76% being non-open access articles) published in "
        "Intensive Care Medicine in the year 2008. The median number (interquartile range) of "
        "citations of non-open access articles was 8 (4-12) versus 9 (6-18) in the case of "
        "open access articles (p=0.084). In the highest citation range (>8), the citation count "
        "was 13 (10-16) and 18 (13-21) (p=0.008), respectively. The mean follow-up was 37.5 "
        "\u00b1 3 months in both groups. The open access advantage is greater for the more "
        "highly cited articles, and appears in the 30-35 months after publication."
    )
    evidence = [make_evidence("22683044", "", abstract)]
    answer = (
        "Among the most cited articles, open access papers were cited more often than non-open "
        "access papers (18 vs 13) [PMID:22683044]."
    )
    (sentence,) = Verifier(FixedNLI(ENTAILS)).verify(answer, evidence).sentences
    failed = [c.name for claim in sentence.claims for c in claim.checks if not c.passed]
    assert "unstated_number" not in failed
    assert sentence.verdict is Verdict.SUPPORTED
