# ruff: noqa: RUF001 (typographic quotes are what is under test)
from __future__ import annotations

from verifiers.checks.normalise import normalise
from verifiers.checks.quotes import check_quotes, extract_quotes

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
