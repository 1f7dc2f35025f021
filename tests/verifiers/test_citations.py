from __future__ import annotations

import pytest

from verifiers.citations import parse_citations, strip_citations

GIVEN = ["45638119", "1568684", "21366394"]


def cited(sentence: str) -> list[tuple[str, bool]]:
    return [(c.pmid, c.valid) for c in parse_citations(sentence, GIVEN)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("ALDH1 predicts poor prognosis [PMID:45638119].", [("45638119", True)]),
        ("Shown twice [PMID 45638119, 1568684].", [("45638119", True), ("1568684", True)]),
        ("Also here (PMID: 1568684).", [("1568684", True)]),
        ("As PMID 21366394 reports, it works.", [("21366394", True)]),
        ("Bare bracketed PMID [1568684].", [("1568684", True)]),
        ("Numbered reference [2].", [("1568684", True)]),
        ("Numbered list [1, 3].", [("45638119", True), ("21366394", True)]),
        ("Numbered range [1-3].", [("45638119", True), ("1568684", True), ("21366394", True)]),
        ("Fabricated [PMID:99999999].", [("99999999", False)]),
        ("Out of range [7].", [("7", False)]),
        ("Mixed [PMID: 45638119; PMID: 12345678].", [("45638119", True), ("12345678", False)]),
    ],
)
def test_formats_and_validity(sentence: str, expected: list[tuple[str, bool]]) -> None:
    assert cited(sentence) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "The trial enrolled patients (n = 12345) in 2019 (2019).",
        "Risk fell [95% CI 0.6-0.9] with PMID-like prose 5 patients.",
        "Ratio was 3:1 (range 2-4).",
    ],
)
def test_numbers_in_prose_are_not_citations(sentence: str) -> None:
    assert cited(sentence) == []


def test_offsets_point_at_the_marker() -> None:
    sentence = "It works [PMID:45638119] and is cheap [2]."
    for citation in parse_citations(sentence, GIVEN):
        assert sentence[citation.start : citation.end] == citation.raw


def test_strip_citations_leaves_the_claim() -> None:
    sentence = "It works [PMID:45638119] and is cheap (PMID: 1568684)."
    assert strip_citations(sentence, parse_citations(sentence, GIVEN)) == "It works and is cheap."


def test_client_documents_with_non_numeric_ids() -> None:
    given = ["45638119", "biho913w", "doc-7"]
    found = parse_citations("As shown [PMID:biho913w] and [doc-7], not [other].", given)
    assert [(c.pmid, c.valid) for c in found] == [("biho913w", True), ("doc-7", True)]


def test_fabricated_non_numeric_ids_are_invalid() -> None:
    found = parse_citations("Shown [PMID:abc12x] here.", GIVEN)
    assert [(c.pmid, c.valid) for c in found] == [("abc12x", False)]


@pytest.mark.parametrize(
    "marker",
    [
        "[PM\u200dID:99999999]",  # a zero-width joiner inside "PMID"
        "\uff3bPMID\uff1a\uff19\uff19\uff19\uff19\uff19\uff19\uff19\uff19\uff3d",  # full-width
        "[PMID:\u200e\u202a99999999\u202c\u200f]",  # bidi marks around the digits
        "[PMID:99999\u0301999]",  # a combining mark on a digit
        "[PMID:\u0669\u0669\u0669\u0669\u0669\u0669\u0669\u0669]",  # Arabic-Indic digits
        "PMID\u2060 99999999",  # a word joiner in a bare citation
    ],
)
def test_lookalike_citations_are_read_as_written(marker: str) -> None:
    """Issue 26: a fabricated PMID in lookalike characters is a citation, not prose."""
    sentence = f"Ibuprofen halves infections {marker}."
    [citation] = parse_citations(sentence, GIVEN)
    assert (citation.pmid, citation.valid) == ("99999999", False)
    assert sentence[citation.start : citation.end] == citation.raw
    assert strip_citations(sentence, [citation]) == "Ibuprofen halves infections."
