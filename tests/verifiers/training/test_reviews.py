"""Reviewers' labels as NLI data: the export reads back as training pairs and evaluation items,
grouped by request, and what says nothing about support is left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.proxy.review.exported import write_export
from verifiers.training.examples import CONTRADICTION, ENTAILMENT, NEUTRAL
from verifiers.training.reviews import ReviewFileError, review_examples, review_items


def test_the_export_reads_back_as_pairs_grouped_by_request(tmp_path: Path) -> None:
    path = tmp_path / "reviews.jsonl"
    rows = write_export(path)
    # Not about support, or no evidence span: left out.
    extra = [
        {**rows[0], "verdict": "uncited", "expected": None},
        {**rows[0], "premise": "", "request_id": "req-none"},
    ]
    with path.open("a", encoding="utf-8") as out:
        out.write("".join(json.dumps(r) + "\n" for r in extra))
    examples = review_examples(path)
    assert [(e.premise, e.hypothesis) for e in examples] == [
        (r["premise"], r["hypothesis"]) for r in rows
    ]
    labels = {"entailment": ENTAILMENT, "neutral": NEUTRAL, "contradiction": CONTRADICTION}
    assert [e.label for e in examples] == [labels[str(r["expected"])] for r in rows]
    assert {e.group for e in examples} == {f"review:req-{i}" for i in range(3)}
    items = review_items(path)
    assert [(i.claim, i.sentences, i.group) for i in items] == [
        (e.hypothesis, (e.premise,), e.group) for e in examples
    ]


def test_a_line_that_is_not_a_review_row_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "reviews.jsonl"
    path.write_text('{"premise": "x"}\n', encoding="utf-8")
    with pytest.raises(ReviewFileError, match=r"reviews\.jsonl:1"):
        review_examples(path)
