"""Emphasis and inline-code markers leave a claim; the words they mark, and every asterisk or
underscore that marks nothing, stay."""

from __future__ import annotations

import pytest

from verifiers.markup import as_prose, without_emphasis


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("**Metformin** lowers HbA1c", "Metformin lowers HbA1c"),
        ("__Statins__ reduce *LDL* by _half_", "Statins reduce LDL by half"),
        ("**Key finding:** apixaban", "Key finding: apixaban"),
        ("`CYP3A4` inhibitors", "CYP3A4 inhibitors"),
        ("a bold opened before. **Aspirin", "a bold opened before. Aspirin"),
        ("***both*** at once", "both at once"),
    ],
)
def test_markers_leave_and_words_stay(written: str, read: str) -> None:
    assert without_emphasis(written) == read


@pytest.mark.parametrize(
    "text",
    [
        "p < 0.05* versus placebo",  # a footnote or significance mark
        "a 2*3 factorial design",
        "the gene_id and IL_6 columns",
        "TNF-α * IL-6 interaction",  # noqa: RUF001 (the Greek letter, as abstracts write it)
        "(*) marks a significant difference",
    ],
)
def test_asterisks_and_underscores_that_mark_nothing_stay(text: str) -> None:
    assert without_emphasis(text) == text


@pytest.mark.parametrize(
    ("row", "read"),
    [
        ("Metformin | lowers HbA1c by 1% | |", "Metformin: lowers HbA1c by 1%"),
        ("**Aspirin** | 75 mg | cut strokes by 20% |", "Aspirin: 75 mg, cut strokes by 20%"),
        ("Apixaban cut strokes. | . |", "Apixaban cut strokes."),
        ("No table here, just prose.", "No table here, just prose."),
    ],
)
def test_a_table_row_is_read_as_prose(row: str, read: str) -> None:
    assert as_prose(row) == read
