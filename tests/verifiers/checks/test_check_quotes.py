# ruff: noqa: RUF001 (typographic quotes are what is under test)
from __future__ import annotations

import pytest

from verifiers.checks.normalise import normalise
from verifiers.checks.quotes import check_quotes, extract_quotes, quote_source

# SciFact corpus doc 1568684 (ODC-By), one sentence of the abstract.
ABSTRACT = [
    (
        "1568684",
        "Whole-body energy expenditure was also increased upon CDCA treat-\nment, with effi-"
        "cacy reported by “most” participants.",
    )
]


def test_normalise_unifies_typography() -> None:
    assert (
        normalise("The ﬁrst “smart”  quote’s treat-\nment")
        == 'the first "smart" quote\'s treatment'
    )


def test_quote_found_despite_hyphenation_ligatures_quotes_and_whitespace() -> None:
    sentence = (
        'They wrote that "whole body energy   expenditure was also increased upon CDCA treatment".'
    )
    [result] = check_quotes(sentence, ABSTRACT)
    assert result.passed and result.pmid == "1568684"


def test_altered_quote_fails() -> None:
    sentence = "They wrote “whole-body energy expenditure was also reduced upon CDCA treatment”."
    [result] = check_quotes(sentence, ABSTRACT)
    assert not result.passed


def test_short_scare_quotes_are_not_checked() -> None:
    assert extract_quotes('This "works" and a "two words" phrase.') == []


@pytest.mark.parametrize(
    "quote",
    [
        "Met\u200dformin lowered HbA1c by 0.8%",  # a zero-width joiner
        "Metformin lowered HbA1c by \u0660.\u0668%",  # Arabic-Indic digits
        "Metformin lowered HbA1c by 0\u0301.8%",  # a combining mark on a digit
        "\uff2detformin lowered HbA1c by \uff10.\uff18%",  # full-width
    ],
)
def test_the_quote_check_folds_lookalikes_as_the_citation_parser_does(quote: str) -> None:
    """Issue 26 item 9: the same folding in the citation parser and the quote check."""
    sources = [("1", "Metformin lowered HbA1c by 0.8% in 12 weeks.")]
    assert quote_source(quote, sources) == "1"
    assert quote_source(quote, [("2", "Metformin lowered HbA1c by 0.9% in 12 weeks.")]) is None
