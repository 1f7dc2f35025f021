"""How ``eval answers`` builds its items from BioASQ's golden files. BioASQ may not be copied into
the project, so the golden file here is written for the test, in BioASQ's shape, with the two
offset slips its real snippets show: a snippet that begins with the last word of the sentence
before it, and one that ends with the first letters of the sentence after it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from verifiers.eval.answers import load_items
from verifiers.training.examples import is_answer_eval


def _held_out_body() -> str:
    """A question the answer evaluation holds out (the split is a salted hash of the body)."""
    return next(
        body
        for n in itertools.count()
        if is_answer_eval(f"bioasq:{(body := f'Does drug {n} lower blood pressure?')}")
    )


def _golden(tmp_path: Path, snippets: list[str]) -> Path:
    question = {
        "id": "q1",
        "body": _held_out_body(),
        "ideal_answer": ["Drug X lowered systolic blood pressure by 12 mmHg in adults."],
        "snippets": [
            {"document": "http://www.ncbi.nlm.nih.gov/pubmed/123", "text": text}
            for text in snippets
        ],
    }
    (tmp_path / "bioasq").mkdir()
    path = tmp_path / "bioasq" / "test_golden.json"
    path.write_text(json.dumps({"questions": [question]}), encoding="utf-8")
    return tmp_path


def _sentences(data: Path) -> list[str]:
    (item,) = load_items(data, "bioasq")
    return [s.text for ev in item.evidence for s in ev.sentences]


def test_snippets_lose_the_words_of_the_sentences_around_them(tmp_path: Path) -> None:
    data = _golden(
        tmp_path,
        [
            "gimen. Drug X lowered systolic blood pressure by 12 mmHg in adults. Despit",
            "The effect was seen in E. coli",
            "Blood pressure fell within two weeks. A",
        ],
    )
    assert _sentences(data) == [
        "Drug X lowered systolic blood pressure by 12 mmHg in adults.",
        # The segmenter knows "E. coli" is no sentence end: the last word stays.
        "The effect was seen in E. coli",
        "Blood pressure fell within two weeks.",
    ]


def test_whole_sentences_are_kept(tmp_path: Path) -> None:
    """A snippet of one sentence, a last sentence that ends in a bracket and a heading are
    evidence as written."""
    data = _golden(
        tmp_path,
        [
            "Drug X lowered systolic blood pressure.",
            "Adults were enrolled. The trial was registered (NCT0253).",
        ],
    )
    assert _sentences(data) == [
        "Drug X lowered systolic blood pressure.",
        "Adults were enrolled.",
        "The trial was registered (NCT0253).",
    ]
