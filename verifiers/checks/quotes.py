"""Quoted text must appear, after normalisation, in the cited abstract."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers._types import CheckResult
from verifiers.checks.normalise import normalise

_QUOTE = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<!\w)'([^']+)'(?!\w)")
MIN_QUOTE_WORDS = 3  # shorter quotes are scare quotes or terms, not citations of text


def extract_quotes(sentence: str) -> list[str]:
    """Quoted passages of at least ``MIN_QUOTE_WORDS`` words."""
    quotes = []
    for match in _QUOTE.finditer(sentence):
        text = next(g for g in match.groups() if g is not None).strip()
        if len(text.split()) >= MIN_QUOTE_WORDS:
            quotes.append(text)
    return quotes


def check_quotes(sentence: str, sources: Sequence[tuple[str, str]]) -> list[CheckResult]:
    """One result per quote: passed when it is a normalised substring of one of ``sources``
    (pairs of PMID and title + abstract text)."""
    normalised = [(pmid, normalise(text)) for pmid, text in sources]
    results = []
    for quote in extract_quotes(sentence):
        needle = normalise(quote).strip(" .,;:")
        pmid = next((p for p, text in normalised if needle in text), None)
        if pmid is None:
            results.append(CheckResult("quote", False, f"quote not in the evidence: {quote!r}"))
        else:
            results.append(CheckResult("quote", True, f"quote found: {quote!r}", pmid))
    return results
