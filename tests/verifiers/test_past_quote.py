"""A quoted claim that every check passes against its quote, but that the model leaves
undecided, is read once more against windows of the cited abstract: a quote is often shorter
than the finding it cites. Only support is taken from past the quote, the checks still read the
quote, and the sentence says so (``premise: quote_and_window``). The model here is scripted
(it entails only a premise stating the finding) so that what shows is the engine's rule.
Abstract: PubMedQA, PMID 17208539 (MIT)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from verifiers import Premise, Verdict
from verifiers.engine import Verifier
from verifiers.nli._base import NLIPair, NLIScores
from verifiers.windows import make_evidence

PMID = "17208539"
SENTENCES = [
    "The transanal endorectal pull-through (TERPT) is becoming the most popular procedure in "
    "the treatment of Hirschsprung disease (HD), but overstretching of the anal sphincters "
    "remains a critical issue that may impact the continence.",
    "This study examined the long-term outcome of TERPT versus conventional transabdominal "
    "(ABD) pull-through for HD.",
    "Records of 41 patients more than 3 years old who underwent a pull-through for HD (TERPT, "
    "n = 20; ABD, n = 21) were reviewed, and their families were thoroughly interviewed and "
    "scored via a 15-item post-pull-through long-term outcome questionnaire.",
    "Overall scores were similar.",
    "However, continence score was significantly better in the ABD group, and the stool "
    "pattern score was better in the TERPT group.",
]
FINDING = "continence score was significantly better"
QUOTE = "Overall scores were similar"


class EntailsTheFinding:
    """Entails a claim on continence from a premise stating the finding, is neutral on any other
    pair; keeps the premises it was shown."""

    name = "scripted"
    version = "entails-the-finding"

    def __init__(self) -> None:
        self.premises: list[str] = []

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        self.premises += [p.premise for p in pairs]
        return [
            NLIScores(0.96, 0.03, 0.01)
            if FINDING in p.premise and "Continence" in p.hypothesis
            else NLIScores(0.02, 0.96, 0.02)
            for p in pairs
        ]


@pytest.fixture
def nli() -> EntailsTheFinding:
    return EntailsTheFinding()


def judge(nli: EntailsTheFinding, answer: str):  # type: ignore[no-untyped-def]
    evidence = [make_evidence(PMID, "Long-term results of pull-through for HD", SENTENCES)]
    (sentence,) = Verifier(nli).verify(answer, evidence).sentences
    return sentence


def test_a_claim_its_quote_leaves_open_is_supported_by_the_window_past_it(
    nli: EntailsTheFinding,
) -> None:
    sentence = judge(
        nli, f'Continence was better after the abdominal pull-through [PMID:{PMID} "{QUOTE}"].'
    )
    assert sentence.verdict is Verdict.SUPPORTED
    assert sentence.premise is Premise.QUOTE_AND_WINDOW
    assert nli.premises[0] == "Overall scores were similar."  # the quote was read first
    assert [FINDING in e.text for e in sentence.evidence] == [True]  # what supported it
    assert all(c.passed for c in sentence.checks)


def test_a_quote_that_decides_is_all_that_is_read(nli: EntailsTheFinding) -> None:
    quote = "continence score was significantly better in the ABD group"
    sentence = judge(nli, f'Continence was better after ABD [PMID:{PMID} "{quote}"].')
    assert sentence.verdict is Verdict.SUPPORTED and sentence.premise is Premise.QUOTE
    assert len(nli.premises) == 1


def test_what_the_quote_fails_is_not_read_past(nli: EntailsTheFinding) -> None:
    # 21 is a number of the abstract, not of the quote: the claim rests on words it did not
    # quote, and the window that would entail it is never asked.
    sentence = judge(
        nli,
        f"Continence was better in the 21 patients of the abdominal pull-through "
        f'[PMID:{PMID} "{QUOTE}"].',
    )
    assert sentence.verdict is Verdict.UNSUPPORTED and sentence.premise is Premise.QUOTE
    assert any(not c.passed for c in sentence.checks)
    assert nli.premises == ["Overall scores were similar."]


def test_nothing_past_the_quote_entails_it(nli: EntailsTheFinding) -> None:
    sentence = judge(
        nli, f'The stool pattern was worse after the transanal operation [PMID:{PMID} "{QUOTE}"].'
    )
    assert sentence.verdict is Verdict.UNSUPPORTED and sentence.premise is Premise.QUOTE
    assert len(nli.premises) > 1  # the quote, then windows of the abstract
