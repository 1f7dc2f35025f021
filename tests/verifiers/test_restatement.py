"""Claims that repeat a whole clause of their evidence are supported without the model
(``verifiers.restatement``); anything less than a whole clause is still the model's to judge.
Abstract sentences: Check-COVID corpus (MIT) and PubMedQA (MIT, PMIDs 17559449 and 18843057)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from verifiers import Evidence, Verdict
from verifiers.engine import Verifier
from verifiers.eval.pairs import CountingNLI
from verifiers.restatement import RESTATED_BY, restated_sentence
from verifiers.windows import Window, make_evidence

CRUISE = "biho913w"
# A sentence of the cruise ship abstract, as written.
COPIED = "The majority of COVID-19-positive patients were asymptomatic (81%, 104 patients)"
ERODE = (
    "Paediatric SF medicines were not more erosive than SC medicines in vitro; a more "
    "significant predictor of their erosive potential was dose form."
)


def window(text: str) -> Window:
    return Window("1", "", text, 0, len(text), 0, 0)


@pytest.mark.parametrize(
    ("claim", "text"),
    [
        (ERODE, ERODE),  # the whole sentence
        ("a more significant predictor of their erosive potential was dose form.", ERODE),
        ("Paediatric SF medicines were not more erosive than SC medicines in vitro", ERODE),
        # Case, hyphens, typographic quotes and spacing are not differences.
        ("PAEDIATRIC SF  medicines were not more erosive than SC medicines in-vitro", ERODE),
        (
            "its use may be influenced by post-graduate education",
            "Uptake was unrelated to practice size, but that its use may be influenced by "
            "post graduate education.",
        ),
    ],
)
def test_a_whole_clause_repeated_is_a_restatement(claim: str, text: str) -> None:
    found = restated_sentence(claim, [window("An unrelated sentence."), window(text)])
    assert found is not None and found.text == text


@pytest.mark.parametrize(
    ("claim", "text"),
    [
        # Inside a clause that doubts, asks or hypothesises: not asserted by the evidence.
        ("aspirin reduces the risk of stroke", "It is unclear whether aspirin reduces the "
         "risk of stroke."),
        ("aspirin reduces the risk of stroke", "We hypothesised that aspirin reduces the risk "
         "of stroke."),
        # A clause cut short of its restriction.
        ("aspirin reduced mortality after surgery", "Aspirin reduced mortality after surgery, "
         "but only in women."),
        # Not the same words.
        ("Paediatric SF medicines were more erosive than SC medicines in vitro", ERODE),
        # Too short to be a claim of its own.
        ("dose form", "Dose form."),
    ],
)  # fmt: skip
def test_anything_less_than_a_whole_clause_is_not(claim: str, text: str) -> None:
    assert restated_sentence(claim, [window(text)]) is None


def one(verifier: Verifier, answer: str, evidence: Sequence[Evidence]):  # type: ignore[no-untyped-def]
    (sentence,) = verifier.verify(answer, evidence).sentences
    return sentence


def test_a_sentence_copied_from_its_abstract_is_supported_without_the_model(
    contradicting: CountingNLI, evidence: list[Evidence]
) -> None:
    sentence = one(Verifier(contradicting), f"{COPIED} [PMID:{CRUISE}].", evidence)
    assert sentence.verdict is Verdict.SUPPORTED
    assert contradicting.pairs == 0
    (claim,) = sentence.claims
    assert claim.decided_by == RESTATED_BY and not claim.needs_review
    (span,) = claim.evidence
    cruise = next(ev for ev in evidence if ev.pmid == CRUISE)
    assert COPIED in cruise.abstract[span.start : span.end]


def test_a_copy_with_one_word_changed_goes_to_the_model(
    contradicting: CountingNLI, evidence: list[Evidence]
) -> None:
    changed = COPIED.replace("asymptomatic", "symptomatic")
    sentence = one(Verifier(contradicting), f"{changed} [PMID:{CRUISE}].", evidence)
    assert sentence.verdict is Verdict.CONTRADICTED
    assert contradicting.pairs > 0
    assert all(c.decided_by != RESTATED_BY for c in sentence.claims)


def test_a_copy_of_another_abstract_than_the_one_cited_goes_to_the_model(
    contradicting: CountingNLI, evidence: list[Evidence]
) -> None:
    """Judged against the windows of the abstract it cites, the copy restates nothing."""
    other = next(ev.pmid for ev in evidence if ev.pmid != CRUISE)
    sentence = one(Verifier(contradicting), f"{COPIED} [PMID:{other}].", evidence)
    assert sentence.verdict is not Verdict.SUPPORTED


def test_the_restated_sentence_is_cut_from_a_passage() -> None:
    """A record's "sentence" may be a passage (BioASQ snippets); the evidence of a restated
    claim is the sentence it repeats, with offsets into the abstract, not its negated
    neighbour."""
    passage = (
        "Uptake was unrelated to practice size. Paediatric SF medicines were not more erosive "
        "than SC medicines in vitro. No other factor was associated with erosion."
    )
    whole = Window("1", "", passage, 100, 100 + len(passage), 3, 3)
    found = restated_sentence(
        "Paediatric SF medicines were not more erosive than SC medicines in vitro", [whole]
    )
    assert found is not None
    assert found.text == (
        "Paediatric SF medicines were not more erosive than SC medicines in vitro."
    )
    assert passage[found.start - 100 : found.end - 100] == found.text


# PubMedQA 18843057, a conclusion of two clauses. Cut at ", but", its first clause is not a
# whole clause of the evidence (a restriction follows it there), so only the whole sentence
# copies the evidence.
TWO_CLAUSES = (
    "There were significant differences in the volume delivered by compression methods, but "
    "physical characteristics are not a predictor of tidal volume delivery."
)
TIDAL = make_evidence(
    "18843057",
    "",
    ["Compression methods were compared in a manikin study.", TWO_CLAUSES],
)


@pytest.mark.parametrize(
    "citation",
    ["[PMID:18843057]", '[PMID:18843057 "physical characteristics are not a predictor"]'],
)
def test_a_sentence_copying_its_evidence_whole_is_one_restated_claim(
    contradicting: CountingNLI, citation: str
) -> None:
    """Cut into clauses, each clause would be read without the words the evidence gives it (and
    a borrowed subject can be the wrong one); the copy is one claim, supported as copied."""
    answer = f"{TWO_CLAUSES[:-1]} {citation}."
    sentence = one(Verifier(contradicting), answer, [TIDAL])
    assert sentence.verdict is Verdict.SUPPORTED
    assert contradicting.pairs == 0
    (claim,) = sentence.claims
    assert claim.decided_by == RESTATED_BY
    assert claim.text == TWO_CLAUSES


def test_a_sentence_copying_one_clause_of_its_evidence_is_still_cut(
    contradicting: CountingNLI,
) -> None:
    """The first clause copied and the second changed: the sentence copies nothing whole, so
    its clauses are judged one by one, the changed one by the model."""
    changed = TWO_CLAUSES.replace("are not a predictor", "are a predictor")
    sentence = one(Verifier(contradicting), f"{changed[:-1]} [PMID:18843057].", [TIDAL])
    assert len(sentence.claims) == 2
    assert sentence.verdict is Verdict.CONTRADICTED
    assert contradicting.pairs > 0
