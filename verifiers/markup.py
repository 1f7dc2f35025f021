"""Markdown a writer puts around words (bold, italics, inline code) that is no part of what the
words say: the judge reads "**Metformin** lowers HbA1c" as "Metformin lowers HbA1c"."""

from __future__ import annotations

import re

# Runs of two or more: "**bold**", "__bold__", and a bold that opened in an earlier sentence.
_STRONG = re.compile(r"\*{2,}|(?<![\w])_{2,}|_{2,}(?![\w])")
# A single marker only where it pairs around words: "*italic*", "_italic_"; a lone "*"
# (a footnote, "p < 0.05*") and snake_case stay.
_ITALIC = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
_CODE = re.compile(r"`+([^`\n]+)`+")


def without_emphasis(text: str) -> str:
    """``text`` without its emphasis and inline-code markers (their words stay)."""
    text = _CODE.sub(r"\1", text)
    text = _STRONG.sub("", text)
    return _ITALIC.sub(r"\2", text)
