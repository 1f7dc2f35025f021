"""A model contradiction of a claim about something else is set aside as ``unrelated``: the
bundled sentence encoder (the real one) says how close the claim is to the window that decided.
The NLI backend here contradicts every pair, so what the rule does shows on its own."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bench.realtext import real_texts
from tests.verifiers.fixed_nli import CONTRADICTS, FixedNLI
from verifiers import Verdict, Verifier, make_evidence
from verifiers.config import verifier_config
from verifiers.embed import LazyEncoder, shared_encoder
from verifiers.engine import UNRELATED
from verifiers.relatedness import UNRELATED_BELOW, Relatedness

ASPIRIN = [make_evidence("1", "Aspirin and fever", ["Aspirin reduces fever in adults."])]
OFF_TOPIC = "The boy is alone in the bathtub on the moon."
ON_TOPIC = "Aspirin raises fever in adults [PMID:1]."


def verifier(relatedness: Relatedness | None) -> Verifier:
    return Verifier(FixedNLI(CONTRADICTS), checks=(), relatedness=relatedness)


@pytest.mark.parametrize(
    ("joiner", "verdict"),
    [(" ", Verdict.UNSUPPORTED), ("\n\n", Verdict.UNCITED)],
    ids=["read-with-its-paragraphs-citation", "a-paragraph-of-its-own"],
)
def test_an_off_topic_sentence_is_not_contradicted_and_says_why(
    joiner: str, verdict: Verdict
) -> None:
    """The aside is `unsupported`, not `contradicted`, where its paragraph's citation at the end
    is lent to it, and `uncited` in a paragraph of its own."""
    judge = verifier(Relatedness(LazyEncoder()))
    aside, finding = judge.verify(f"{OFF_TOPIC}{joiner}{ON_TOPIC}", ASPIRIN).sentences
    assert aside.verdict is verdict
    [check] = aside.checks
    assert check.name == UNRELATED and not check.passed
    assert "about different things" in check.detail and "Aspirin reduces fever" in check.detail
    # A claim on the evidence's subject keeps the model's contradiction.
    assert finding.verdict is Verdict.CONTRADICTED
    assert all(c.name != UNRELATED for c in finding.checks)


def test_without_the_rule_the_model_contradicts_the_aside() -> None:
    [aside] = verifier(None).verify(OFF_TOPIC, ASPIRIN).sentences
    assert aside.verdict is Verdict.CONTRADICTED


def test_a_claim_worded_apart_from_its_evidence_is_still_related() -> None:
    # The words differ ("coronavirus" / "COVID-19", "lab" / "hosts"); the subject does not.
    relatedness = Relatedness(shared_encoder())
    evidence = ["Bats and pangolins are the probable hosts of the virus that causes COVID-19."]
    assert relatedness.unrelated("The coronavirus was made in a laboratory.", evidence) is None
    similarity = relatedness.unrelated(OFF_TOPIC, ["Aspirin reduces fever in adults."])
    assert similarity is not None and similarity < UNRELATED_BELOW


def test_the_shipped_verifier_sets_unrelated_contradictions_aside_unless_told_not_to() -> None:
    assert verifier_config().unrelated_below == UNRELATED_BELOW
    bundled = {"name": "bundled"}
    shipped = Verifier.from_config(verifier_config({"nli": bundled}))
    assert shipped.relatedness is not None and shipped.relatedness.below == UNRELATED_BELOW
    off = Verifier.from_config(verifier_config({"nli": bundled, "unrelated_below": None}))
    assert off.relatedness is None
    with pytest.raises(ValidationError, match="unrelated_below"):
        verifier_config({"unrelated_below": 2})


CORPORA = real_texts(per_corpus=40)


@pytest.mark.skipif(not CORPORA, reason="no data directory (../shared/data)")
def test_real_text_of_every_corpus_is_read_as_related_or_not_without_an_error() -> None:
    judge = verifier(Relatedness(shared_encoder()))
    verdicts: list[Verdict] = []
    for corpus, texts in sorted(CORPORA.items()):
        records = [make_evidence(str(i), "t", t) for i, t in enumerate(texts[:3])]
        report = judge.verify(" ".join(texts[3:8]), records)
        for sentence in report.sentences:
            for claim in sentence.claims:
                verdicts.append(claim.verdict)
                # A contradiction set aside leaves the claim unsupported, its similarity given.
                for check in claim.checks:
                    if check.name == UNRELATED:
                        assert claim.verdict is Verdict.UNSUPPORTED, corpus
                        assert "similarity" in check.detail, corpus
    # Texts of one corpus are on one subject more often than not, but not always.
    assert Verdict.CONTRADICTED in verdicts and Verdict.UNSUPPORTED in verdicts
