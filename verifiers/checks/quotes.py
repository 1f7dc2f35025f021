"""Quoted text must appear, after normalisation, in the cited abstract."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers._types import CheckResult
from verifiers.checks._base import Check, CheckInput, Scope
from verifiers.checks.normalise import normalise

_QUOTE = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<!\w)'([^']+)'(?!\w)")
MIN_QUOTE_WORDS = 3  # shorter quotes are scare quotes or terms, not citations of text
QUOTE_CHECK = "quote"  # the name of its results


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
    results = []
    for quote in extract_quotes(sentence):
        pmid = quote_source(quote, sources)
        if pmid is None:
            results.append(CheckResult(QUOTE_CHECK, False, f"quote not in the evidence: {quote!r}"))
        else:
            results.append(CheckResult(QUOTE_CHECK, True, f"quote found: {quote!r}", pmid))
    return results


def quote_source(quote: str, sources: Sequence[tuple[str, str]]) -> str | None:
    """The id of the first of ``sources`` (pairs of id and text) that holds ``quote`` after
    normalisation (case, Unicode forms, spacing, dashes and quote marks); None if none does."""
    needle = normalise(quote).strip(" .,;:")
    if not needle:
        return None
    return next((key for key, text in sources if needle in normalise(text)), None)


def _run(sentence: CheckInput) -> list[CheckResult]:
    sources = [(ev.pmid, f"{ev.title} {ev.abstract}") for ev in sentence.evidence]
    return check_quotes(sentence.text, sources)


QUOTES_CHECK = Check("quotes", _run, scope=Scope.SENTENCE)
