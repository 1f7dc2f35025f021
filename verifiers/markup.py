"""Markdown a writer puts around words (bold, italics, inline code, a table's cell rules) that
is no part of what the words say: the judge reads "**Metformin** lowers HbA1c" as "Metformin
lowers HbA1c", and the row "| Metformin | lowers HbA1c |" as "Metformin: lowers HbA1c"."""

from __future__ import annotations

import re

# Runs of two or more: "**bold**", "__bold__", and a bold that opened in an earlier sentence.
_STRONG = re.compile(r"\*{2,}|(?<![\w])_{2,}|_{2,}(?![\w])")
# A single marker only where it pairs around words: "*italic*", "_italic_"; a lone "*"
# (a footnote, "p < 0.05*") and snake_case stay.
_ITALIC = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
_CODE = re.compile(r"`+([^`\n]+)`+")
_CELL_RULE = re.compile(r"\s*\|\s*")


def without_emphasis(text: str) -> str:
    """``text`` without its emphasis and inline-code markers (their words stay)."""
    text = _CODE.sub(r"\1", text)
    text = _STRONG.sub("", text)
    return _ITALIC.sub(r"\2", text)


def as_prose(text: str) -> str:
    """``text`` without emphasis, and a table row's cells read as prose: the first names what
    the others say ("Metformin: lowers HbA1c, 1 year"). Empty cells (a citation's, once it is
    taken out) are left out."""
    text = without_emphasis(text)
    if "|" not in text:
        return text
    cells = [cell for cell in _CELL_RULE.split(text) if any(c.isalnum() for c in cell)]
    return f"{cells[0]}: {', '.join(cells[1:])}" if len(cells) > 1 else "".join(cells)
