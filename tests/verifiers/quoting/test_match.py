"""A quote against its abstract, character for character, on real abstracts (the SciFact
and Check-COVID excerpts of tests/fixtures/verification)."""

from __future__ import annotations

import pytest

from verifiers import Evidence, QuoteStatus
from verifiers.quoting import check_quote


@pytest.fixture(scope="module")
def records(evidence: list[Evidence]) -> dict[str, Evidence]:
    return {ev.pmid: ev for ev in evidence}


CRUISE = "biho913w"  # Check-COVID: "Of the 217 passengers and crew on board, 128 tested ..."
ABO = "5sfojk7y"


def test_a_verbatim_quote_is_found_at_its_offsets(records: dict[str, Evidence]) -> None:
    quote = "128 tested positive for COVID-19 on reverse transcription-PCR (59%)"
    result = check_quote(quote, [records[CRUISE]], [records[ABO]])
    assert result.status is QuoteStatus.FOUND and result.found_in == CRUISE
    (span,) = result.spans
    assert records[CRUISE].abstract[span.start : span.end] == quote == span.text


@pytest.mark.parametrize(
    "variant",
    [
        "128 TESTED positive for covid-19",  # case
        "128  tested\npositive   for COVID\u201119",  # spacing, non-breaking hyphen
        "128 tested positive for COVID-19 on reverse transcription\u2013PCR (59%)",  # en dash
        "\uff11\uff12\uff18 tested positive",  # full-width digits
        "128 tested positive for COVID-19.",  # trailing punctuation
    ],
)
def test_typography_does_not_make_a_misquote(records: dict[str, Evidence], variant: str) -> None:
    assert check_quote(variant, [records[CRUISE]]).status is QuoteStatus.FOUND


def test_micro_sign_and_greek_mu_are_one_letter() -> None:
    from verifiers.windows import make_evidence

    record = make_evidence("1", "t", "Patients received 50 \u00b5g daily for 12 weeks.")
    assert check_quote("50 \u03bcg daily", [record]).status is QuoteStatus.FOUND


def test_ellipsis_parts_must_appear_in_order(records: dict[str, Evidence]) -> None:
    ordered = "Of the 217 passengers \u2026 6.2% (8) required medical evacuation"
    result = check_quote(ordered, [records[CRUISE]])
    assert result.status is QuoteStatus.FOUND
    assert [s.text for s in result.spans] == [
        "Of the 217 passengers",
        "6.2% (8) required medical evacuation",
    ]
    assert result.spans[0].end < result.spans[1].start
    reversed_order = "6.2% (8) required medical evacuation \u2026 Of the 217 passengers"
    assert check_quote(reversed_order, [records[CRUISE]]).status is QuoteStatus.MISQUOTE


def test_a_changed_number_is_a_misquote_with_the_closest_words(
    records: dict[str, Evidence],
) -> None:
    result = check_quote(
        "128 tested positive for COVID-19 on reverse transcription-PCR (69%)", [records[CRUISE]]
    )
    assert result.status is QuoteStatus.MISQUOTE
    assert result.closest is not None
    assert records[CRUISE].abstract[result.closest.start : result.closest.end] == (
        result.closest.text
    )
    assert "128 tested positive" in result.closest.text
    assert "'69%'" in result.difference and "'59%'" in result.difference


def test_a_number_inside_a_longer_number_is_not_found(records: dict[str, Evidence]) -> None:
    # "28 tested positive" sits inside "128 tested positive": word boundaries decide.
    result = check_quote("28 tested positive", [records[CRUISE]])
    assert result.status is QuoteStatus.MISQUOTE


def test_a_changed_word_is_named(records: dict[str, Evidence]) -> None:
    result = check_quote("the mortality was 8%", [records[CRUISE]])
    assert result.status is QuoteStatus.MISQUOTE
    assert "'8%'" in result.difference


def test_words_of_another_abstract_are_reported_as_such(records: dict[str, Evidence]) -> None:
    quote = "blood group A was associated with a higher risk for acquiring COVID-19"
    result = check_quote(quote, [records[CRUISE]], [records[ABO]])
    assert result.status is QuoteStatus.OTHER_ABSTRACT
    assert result.pmid == CRUISE and result.found_in == ABO
    assert records[ABO].abstract[result.spans[0].start : result.spans[0].end] == quote


def test_title_words_are_found_in_the_title(records: dict[str, Evidence]) -> None:
    title = records[CRUISE].title
    result = check_quote(title[:30], [records[CRUISE]])
    assert result.status is QuoteStatus.FOUND
    assert result.spans[0].in_title and title[result.spans[0].start : result.spans[0].end]


def test_a_quote_without_words_or_without_a_cited_abstract_is_a_misquote(
    records: dict[str, Evidence],
) -> None:
    assert check_quote("...", [records[CRUISE]]).status is QuoteStatus.MISQUOTE
    assert check_quote("128 tested positive", []).status is QuoteStatus.MISQUOTE


def test_every_sentence_of_every_fixture_abstract_is_found_where_it_is(
    evidence: list[Evidence],
) -> None:
    for record in evidence:
        others = [ev for ev in evidence if ev.pmid != record.pmid]
        for sentence in record.sentences:
            result = check_quote(sentence.text, [record], others)
            assert result.status is QuoteStatus.FOUND, sentence.text
            assert result.spans[0].start <= sentence.start + 2
