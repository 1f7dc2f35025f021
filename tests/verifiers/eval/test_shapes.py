"""``eval shapes`` on three real PubMedQA records (tests/fixtures/answers), through a verifier
whose model entails everything: what the engine reads of each shape, not how good its verdicts
are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifiers.eval.answers import AnswerItem, load_items
from verifiers.eval.shapes import SHAPES, compare_shapes

FIXTURES = Path(__file__).parents[2] / "fixtures" / "answers"


@pytest.fixture(scope="module")
def items() -> list[AnswerItem]:
    return load_items(FIXTURES, "pubmedqa")


@pytest.mark.parametrize("name", list(SHAPES))
def test_each_shape_writes_every_sentence_and_its_citation(
    name: str, items: list[AnswerItem]
) -> None:
    for item in items:
        text, spans, labels = SHAPES[name](item)
        assert len(spans) == len(item.sentences)
        for sentence, pmid, (start, end) in zip(item.sentences, item.pmids, spans, strict=True):
            written = text[start:end].replace("**", "")
            assert sentence.rstrip().rstrip(".") in written
            # ``cited_lead`` and the shapes cited after a list or paragraph cite in a label
            # line, those cited in a list's or paragraph's last sentence there.
            cited_in_label = any(pmid in text[a:b] for a, b in labels)
            cited_at_end = name in {"cited_last_item", "cited_paragraph_end"} and (
                pmid in text[spans[-1][0] : spans[-1][1]]
            )
            assert pmid in written or "[1]" in written or cited_in_label or cited_at_end
        assert all(text[a:b].strip() and "\n" not in text[a:b] for a, b in labels)


def test_every_shape_is_read_as_the_plain_answer(
    entailing_verifier: Any, items: list[AnswerItem]
) -> None:
    """A citation after the full stop cites its own sentence, a heading or an introducing line
    is no sentence to judge, a lead-in hides nothing, an item cites what the line
    introducing its list cites, or what the list cites at its end, and a sentence what its
    paragraph cites at its end: each shape gets the plain verdicts."""
    result = compare_shapes(entailing_verifier.verify, items)
    plain = result.shapes["plain"]
    assert plain.sentences == sum(len(i.sentences) for i in items) and plain.supported
    for name, metrics in result.shapes.items():
        assert metrics.sentences == plain.sentences, name
        assert (metrics.unjudged, metrics.uncited, metrics.differs) == (0, 0, 0), name
        assert metrics.labels_judged == 0, name
    assert result.shapes["under_heading"].labels == len(items)
    assert result.shapes["bullets"].labels == len(items)
    assert result.shapes["cited_lead"].labels == len(items)
    assert result.shapes["cited_after_list"].labels == len(items)
    assert result.shapes["cited_after_paragraph"].labels == len(items)
