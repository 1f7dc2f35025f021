"""``eval answers`` appends off-topic uncited sentences to each answer: one of another answer, one
everyday scene from SNLI's test split. Their right verdict is ``uncited``; one called
``contradicted`` is counted as a false alarm. The answers are PubMedQA records (MIT, as in
tests/fixtures/answers); the everyday sentences are written here in SNLI's tokenised form."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tests.verifiers.fixed_nli import CONTRADICTS, ENTAILS, FixedNLI
from verifiers import Verifier, make_evidence
from verifiers.eval.answers import AnswerItem, AnswerMetrics, score_off_topic
from verifiers.eval.off_topic import (
    OffTopicSentence,
    everyday_sentences,
    off_topic,
)
from verifiers.nli import NLIScores

IBUPROFEN = AnswerItem(
    "pubmedqa:ibuprofen",
    (
        "Pretreatment with ibuprofen before elective total hip surgery increases the perioperative "
        "blood loss.",
    ),
    ("1",),
    (
        make_evidence(
            "1",
            "Ibuprofen and blood loss",
            [
                "Patients pretreated with ibuprofen before total hip surgery lost more blood "
                "during the perioperative period than those who were not."
            ],
        ),
    ),
)
ZINC = AnswerItem(
    "pubmedqa:zinc",
    ("Zinc supplementation shortens the duration of the common cold in children.",),
    ("2",),
    (
        make_evidence(
            "2",
            "Zinc and colds",
            ["Zinc supplementation shortened the duration of the common cold in children."],
        ),
    ),
)


def snli(tmp_path: Path, premises: Sequence[str], hypotheses: Sequence[str]) -> Path:
    folder = tmp_path / "general_nli" / "snli"
    folder.mkdir(parents=True)
    (folder / "s1.test").write_text("".join(f"{p} \n" for p in premises), encoding="utf-8")
    (folder / "s2.test").write_text("".join(f"{h} \n" for h in hypotheses), encoding="utf-8")
    return tmp_path


def test_everyday_sentences_are_snli_test_sentences_detokenised_once_each(
    tmp_path: Path,
) -> None:
    data = snli(
        tmp_path,
        ["A man does n't sing , he plays a guitar .", "A man does n't sing , he plays a guitar ."],
        ["the dog 's ball is red .", "Two kids ."],
    )
    assert everyday_sentences(data) == (
        "A man doesn't sing, he plays a guitar.",
        "The dog's ball is red.",
    )  # one copy of the repeated premise; "Two kids" is too short to state anything
    assert everyday_sentences(tmp_path / "elsewhere") == ()


def test_each_item_gets_another_answers_sentence_and_an_everyday_one(tmp_path: Path) -> None:
    data = snli(tmp_path, ["A choir sings joyous songs at a church ."], [])
    chosen = off_topic([IBUPROFEN, ZINC], data)
    assert chosen == off_topic([IBUPROFEN, ZINC], data)  # the same items, the same sentences
    assert [s.kind for s in chosen[0]] == ["other_answer", "everyday"]
    assert chosen[0][0].text == ZINC.sentences[0] and chosen[1][0].text == IBUPROFEN.sentences[0]
    assert chosen[0][1].text == "A choir sings joyous songs at a church."
    # An answer on the same topic is no off-topic sentence.
    on_topic = AnswerItem("pubmedqa:again", IBUPROFEN.sentences, ("1",), IBUPROFEN.evidence)
    assert [s.kind for s in off_topic([IBUPROFEN, on_topic], data)[0]] == ["everyday"]


ASIDES = (
    OffTopicSentence("other_answer", ZINC.sentences[0]),
    OffTopicSentence("everyday", "A man is playing a guitar on a stage in front of a crowd."),
)


def scored(scores: NLIScores) -> dict[str, dict[str, object]]:
    result = AnswerMetrics()
    verifier = Verifier(FixedNLI(scores))
    score_off_topic(verifier.verify, IBUPROFEN, ASIDES, result)
    return result.as_dict()["off_topic"]  # type: ignore[return-value]


def test_an_off_topic_sentence_called_contradicted_is_counted_and_uncited_is_not() -> None:
    contradicting = scored(CONTRADICTS)
    for kind in ("other_answer", "everyday"):
        row = contradicting[kind]
        assert row == {
            "sentences": 1,
            "checked": 1,
            "contradicted": 1,
            "contradicted_rate": 1.0,
            "contradicted_unmarked": 1,
        }
    entailing = scored(ENTAILS)
    assert all(row["contradicted"] == 0 for row in entailing.values())
    assert all(row["checked"] == 1 for row in entailing.values())
