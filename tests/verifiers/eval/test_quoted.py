"""The quoted variant of the ``eval answers`` items and its misquotes: on three real PubMedQA
records (tests/fixtures/answers) and, where the public datasets are present, on BioASQ items
built from them at test time (BioASQ may not be copied into the project)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from verifiers import Evidence, ResponseReport, Verifier
from verifiers.checks.quotes import quote_source
from verifiers.eval.answers import AnswerItem, load_items
from verifiers.eval.data import data_dir
from verifiers.eval.quoted import (
    GROUNDED_OVERLAP,
    MAX_QUOTE_WORDS,
    MIN_QUOTE_WORDS,
    QuotedItem,
    change_quoted_number,
    change_word,
    misquotes,
    other_abstract,
    other_item,
    quote_item,
)
from verifiers.quoting import find_quoted
from verifiers.training.paraphrases import overlap

FIXTURES = Path(__file__).parents[2] / "fixtures" / "answers"
DATA = data_dir(relative_to=Path(__file__).parents[3])
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@pytest.fixture(scope="module")
def pubmedqa() -> list[QuotedItem]:
    return [quote_item(item) for item in load_items(FIXTURES, "pubmedqa")]


@pytest.fixture(scope="module")
def bioasq() -> list[QuotedItem]:
    if not DATA.is_dir():
        pytest.skip(f"public datasets not at {DATA}")
    return [quote_item(item) for item in load_items(DATA, "bioasq")]


def _sources(quoted: QuotedItem) -> list[tuple[str, str]]:
    return [(ev.pmid, f"{ev.title} {ev.abstract}") for ev in quoted.evidence]


def _read_back(quoted: QuotedItem, quotes: dict[int, str] | None = None) -> list[tuple[str, str]]:
    """(PMID, quote) of every quoted citation in the rendered answer, as the parser reads them."""
    text, _ = quoted.text(quotes=quotes)
    return [(q.pmids[0], q.quote) for b in find_quoted(text) for q in b.quotes]


def _check_quotes(items: list[QuotedItem]) -> None:
    for quoted in items:
        for index, quote in enumerate(quoted.quotes):
            if not quote:
                continue
            assert quote in quoted.record(index).abstract, (quoted.item.group, quote)
            assert MIN_QUOTE_WORDS <= len(quote.split()) <= MAX_QUOTE_WORDS
            assert "\n" not in quote  # no quote is read across a line
        # The answer's text carries each quote, read back as written by the citation parser.
        expected = [(p, q) for p, q in zip(quoted.item.pmids, quoted.quotes, strict=True) if q]
        assert _read_back(quoted) == expected


def test_every_pubmedqa_sentence_quotes_verbatim_words_of_its_abstract(
    pubmedqa: list[QuotedItem],
) -> None:
    assert len(pubmedqa) == 3 and all(all(q.quotes) for q in pubmedqa)
    _check_quotes(pubmedqa)


def test_every_bioasq_quote_is_verbatim_words_of_the_snippets_cited(
    bioasq: list[QuotedItem],
) -> None:
    # Snippets hold section labels on their own line ("BACKGROUND\n\nThe syndecans ...").
    assert any("\n" in ev.abstract for item in bioasq for ev in item.evidence)
    quotes = [q for item in bioasq for q in item.quotes]
    assert sum(bool(q) for q in quotes) >= 0.9 * len(quotes)
    _check_quotes(bioasq)


def test_pubmedqa_quotes_its_conclusion_put_back_at_the_abstract_end(
    pubmedqa: list[QuotedItem],
) -> None:
    for quoted in pubmedqa:
        (plain,), (record,) = quoted.item.evidence, quoted.evidence
        conclusion = " ".join(quoted.item.sentences)
        assert conclusion not in plain.abstract
        assert record.abstract == f"{plain.abstract} {conclusion}"
        assert all(q in s for q, s in zip(quoted.quotes, quoted.item.sentences, strict=True))


def test_a_changed_word_is_one_word_found_in_no_evidence(pubmedqa: list[QuotedItem]) -> None:
    made = 0
    for quoted in pubmedqa:
        for index, quote in enumerate(quoted.quotes):
            for seed in range(5):
                changed = change_word(quoted, index, pubmedqa, random.Random(seed))
                if changed is None:
                    continue
                made += 1
                before, after = quote.split(), changed.split()
                assert len(before) == len(after)
                assert sum(a != b for a, b in zip(before, after, strict=True)) == 1
                assert quote_source(changed, _sources(quoted)) is None
    assert made >= 10


def test_a_changed_number_differs_only_in_that_number(pubmedqa: list[QuotedItem]) -> None:
    numbered = next(q for q in pubmedqa if q.item.group == "pubmedqa:11838307")
    quote = numbered.quotes[0]  # "... 50% longer and 100% heavier than LEEP specimens"
    for seed in range(5):
        changed = change_quoted_number(numbered, 0, pubmedqa, random.Random(seed))
        assert changed is not None
        assert _NUMBER.findall(changed) != _NUMBER.findall(quote)
        assert _NUMBER.sub("#", changed) == _NUMBER.sub("#", quote)
        assert quote_source(changed, _sources(numbered)) is None
    plain = next(q for q in pubmedqa if q.item.group == "pubmedqa:27491658")
    assert not _NUMBER.search(plain.quotes[0])
    assert change_quoted_number(plain, 0, pubmedqa, random.Random(0)) is None


def test_a_quote_from_another_item_is_in_none_of_this_answers_evidence(
    pubmedqa: list[QuotedItem],
) -> None:
    for quoted in pubmedqa:
        others = [o for o in pubmedqa if o is not quoted]
        elsewhere = [s for o in others for s in _sources(o)]
        for index in range(len(quoted.quotes)):
            changed = other_item(quoted, index, pubmedqa, random.Random(index))
            assert changed is not None
            assert quote_source(changed, _sources(quoted)) is None
            assert quote_source(changed, elsewhere) is not None
    assert other_item(pubmedqa[0], 0, pubmedqa[:1], random.Random(0)) is None


def test_a_quote_from_another_abstract_of_the_item_is_in_that_abstract_only(
    bioasq: list[QuotedItem],
) -> None:
    made = 0
    for quoted in bioasq:
        for index in range(len(quoted.quotes)):
            changed = other_abstract(quoted, index, bioasq, random.Random(0))
            cited = quoted.item.pmids[index]
            if len(quoted.evidence) == 1:
                assert changed is None
            if changed is None:
                continue
            made += 1
            found_in = quote_source(changed, _sources(quoted))
            assert found_in is not None and found_in != cited
            assert quote_source(changed, [(cited, quoted.record(index).abstract)]) is None
    assert made >= 10


def test_a_misquote_changes_only_its_sentences_quote(
    pubmedqa: list[QuotedItem], bioasq: list[QuotedItem]
) -> None:
    kinds: set[str] = set()
    for items in (pubmedqa, bioasq):
        for quoted in items:
            rng = random.Random(quoted.item.group)
            for kind, index, quote in misquotes(quoted, items, rng):
                kinds.add(kind)
                assert quote != quoted.quotes[index]
                expected = [
                    (p, quote if i == index else q)
                    for i, (p, q) in enumerate(zip(quoted.item.pmids, quoted.quotes, strict=True))
                    if q
                ]
                assert _read_back(quoted, {index: quote}) == expected
                # The sentence itself is as written.
                text, spans = quoted.text(quotes={index: quote})
                body = quoted.item.sentences[index].rstrip().rstrip(".")
                assert text[spans[index][0] :].startswith(f"{body} [PMID:")
    assert kinds == {"word", "number", "other_abstract", "other_item"}


def test_quotes_and_misquotes_are_the_same_on_every_run(pubmedqa: list[QuotedItem]) -> None:
    again = [quote_item(q.item) for q in pubmedqa]
    assert again == pubmedqa
    for quoted in pubmedqa:
        first = list(misquotes(quoted, pubmedqa, random.Random(7)))
        assert first == list(misquotes(quoted, pubmedqa, random.Random(7)))


def test_a_sentence_is_grounded_when_its_quote_holds_half_its_words(
    pubmedqa: list[QuotedItem],
) -> None:
    quoted = pubmedqa[0]
    assert all(quoted.grounded())  # each PubMedQA sentence quotes itself
    # The same sentence under a quote holding under half of its content words (a quote of
    # another item) is not grounded.
    other = pubmedqa[1].quotes[0]
    lesser = QuotedItem(quoted.item, (other, *quoted.quotes[1:]), quoted.evidence)
    assert overlap(quoted.item.sentences[0], other) < GROUNDED_OVERLAP
    assert lesser.grounded()[0] is False


def test_an_items_perturbations_do_not_depend_on_the_items_before_it(
    pubmedqa: list[QuotedItem],
) -> None:
    """Each item draws its perturbations from its own generator: a rule that declines on one
    item (or draws once more) moves no other item's, so two runs of ``eval answers`` differ only
    where their rules or their verdicts do."""
    from verifiers.eval.answers import evaluate

    verifier = Verifier.from_config()
    items = [q.item for q in pubmedqa]

    def texts_verified(run: list[AnswerItem]) -> list[str]:
        seen: list[str] = []

        def verify(text: str, evidence: Sequence[Evidence]) -> ResponseReport:
            seen.append(text)
            return verifier.verify(text, evidence)

        evaluate(verify, run, seed=13)
        return seen

    last = items[-1]
    alone = texts_verified([last])
    after_others = texts_verified(items)
    assert len(alone) > 1  # the answer as written, and at least one perturbation of it
    assert after_others[-len(alone) :] == alone
    # The seed still decides them.
    assert texts_verified([last]) == alone
