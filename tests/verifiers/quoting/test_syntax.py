"""Quoted citations as models write them: the shapes the contract's examples invite."""

from __future__ import annotations

import pytest

from verifiers import StrippedQuote
from verifiers.citations import parse_citations
from verifiers.quoting import find_quoted, quote_parts, strip_quotes
from verifiers.quoting.syntax import MAX_QUOTE_CHARS, mask_quotes
from verifiers.segment import segment

QUOTE = "Of the 217 passengers and crew on board, 128 tested positive for COVID-19"


@pytest.mark.parametrize(
    ("cited", "bare", "quote"),
    [
        (f'[PMID:123 "{QUOTE}"]', "[PMID:123]", QUOTE),
        (f"[PMID:123 \u201c{QUOTE}\u201d]", "[PMID:123]", QUOTE),  # curly
        (f"[PMID:123 \u201e{QUOTE}\u201c]", "[PMID:123]", QUOTE),  # German low-high
        (f'[PMID 123: "{QUOTE}"]', "[PMID 123]", QUOTE),
        (f'[PMID:123 \u2014 "{QUOTE}"]', "[PMID:123]", QUOTE),
        (f'[pmid: 123, "{QUOTE}"]', "[pmid: 123]", QUOTE),
        (f'[123 "{QUOTE}"]', "[123]", QUOTE),
        (f'\uff3bPMID\uff1a\uff11\uff12\uff13 "{QUOTE}"\uff3d', "[PMID:123]", QUOTE),  # full width
        (f'[PMI\u200dD:123 "{QUOTE}"]', "[PMID:123]", QUOTE),  # zero-width joiner
    ],
)
def test_one_quote_in_the_shapes_models_write(cited: str, bare: str, quote: str) -> None:
    text = f"Most tested positive {cited}. Next."
    (bracket,) = find_quoted(text)
    assert text[bracket.start : bracket.end] == cited
    assert bracket.bare == bare
    (quoted,) = bracket.quotes
    assert quoted.quote == quote and quoted.pmids == ("123",)
    assert text[quoted.start + 1 : quoted.end - 1] == quote
    visible, stripped = strip_quotes(text)
    assert visible == f"Most tested positive {bare}. Next."
    assert stripped == (StrippedQuote(21, 21 + len(bare), ("123",), quote),)


def test_several_pmids_share_a_quote_or_each_has_its_own() -> None:
    text = 'A [PMID:1, PMID:2 "x y z"] and B [PMID:3 "a b"; PMID:4 \u201cc d\u201d].'
    shared, own = find_quoted(text)
    assert [(q.pmids, q.quote) for q in shared.quotes] == [(("1", "2"), "x y z")]
    assert [(q.pmids, q.quote) for q in own.quotes] == [(("3",), "a b"), (("4",), "c d")]
    visible, stripped = strip_quotes(text)
    assert visible == "A [PMID:1, PMID:2] and B [PMID:3, PMID:4]."
    assert [visible[q.start : q.end] for q in stripped] == [
        "[PMID:1, PMID:2]",
        "[PMID:3, PMID:4]",
        "[PMID:3, PMID:4]",
    ]


@pytest.mark.parametrize("ellipsis", ["...", "\u2026", " [...] ", ". . ."])
def test_an_ellipsis_cuts_a_quote_into_parts(ellipsis: str) -> None:
    assert quote_parts(f"128 tested positive{ellipsis}mortality was 0.8%") == (
        "128 tested positive",
        "mortality was 0.8%",
    )
    assert quote_parts(f"{ellipsis}tested positive") == ("tested positive",)


@pytest.mark.parametrize(
    "text",
    [
        "Plain [PMID:123] and numbered [1] stay plain.",
        'Scare "quotes" outside brackets [PMID:123].',
        'Unclosed [PMID:123 "words that never end',
        'A quote with a line\nbreak [PMID:1 "one\ntwo"].',
        f'Too long [PMID:1 "{"word " * (MAX_QUOTE_CHARS // 4)}"].',
        '[see "Methods"] is not a citation.',
    ],
)
def test_what_is_not_a_quoted_citation_is_left_alone(text: str) -> None:
    assert find_quoted(text) == []
    assert strip_quotes(text) == (text, ())
    assert mask_quotes(text) == text


def test_citation_parser_reads_the_quote_and_ignores_what_it_holds() -> None:
    sentence = 'Most were positive [PMID:111 "128 tested positive (PMID 999) [sic"] today [2].'
    citations = parse_citations(sentence, ["111", "222"])
    assert [(c.pmid, c.valid, c.quote) for c in citations] == [
        ("111", True, "128 tested positive (PMID 999) [sic"),
        ("222", True, ""),
    ]
    assert citations[0].raw == sentence[citations[0].start : citations[0].end]
    assert citations[0].raw.endswith('[sic"]')


def test_a_quote_holding_sentence_ends_stays_in_its_sentence() -> None:
    text = (
        'Most tested positive [PMID:1 "128 tested positive. Of these, 19% were symptomatic'
        ' \u2026 mortality was 0.8%"]. Few died [PMID:1].'
    )
    assert [s.text for s in segment(text)] == [
        text[: text.index("Few") - 1],
        "Few died [PMID:1].",
    ]


def test_masking_blanks_quotes_and_keeps_offsets() -> None:
    text = 'Most tested positive [PMID:1 "128 tested positive"] today.'
    masked = mask_quotes(text)
    assert len(masked) == len(text)
    assert masked == "Most tested positive [PMID:1" + " " * 22 + "] today."
