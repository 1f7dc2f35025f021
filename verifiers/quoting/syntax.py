"""The syntax of a quoted citation: ``[PMID:123 "exact words from the abstract"]``.

The citation contract asks the model to put, inside the citation's bracket, the words of the
abstract its sentence rests on. Written by models, that comes in many shapes, all read here:

- straight or curly quotes (``"…"``, ``\u201c…\u201d``, ``\u201e…\u201c``, ``\u00ab…\u00bb``), after
  the id or after a colon, comma or dash (``[PMID:123: "…"]``, ``[PMID 123 \u2014 "…"]``);
- several PMIDs in one bracket, each with its own quote or sharing the one that follows them
  (``[PMID:1 "a"; PMID:2 "b"]``, ``[PMID:1, PMID:2 "a"]``);
- an ellipsis inside a quote (``...``, ``\u2026``, ``[...]``) for words left out: the quote is
  then several parts, to be found in this order.

Lookalikes (full-width brackets and digits, zero-width characters) are folded first, as the
citation parser folds them; offsets stay those of the text as written. A quote longer than
``MAX_QUOTE_CHARS`` is not a quote the contract asked for and the bracket is not read as one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers._types import StrippedQuote
from verifiers.fold import fold

MAX_QUOTE_CHARS = 400  # about 60 words: twice what the contract asks for
_OPENING = '"\u201c\u201e\u00ab\u201f'
_CLOSING = '"\u201d\u201c\u00bb'
_QUOTE = rf"[{_OPENING}](?P<quote>[^{_OPENING}{_CLOSING}\]\n]{{1,{MAX_QUOTE_CHARS}}})[{_CLOSING}]"
# A PMID, or after "PMID" any id a client document may have (``[PMID:doc-7 "…"]``).
_ID = r"(?:PMIDs?\s*:?\s*[\w.-]*\w|\d+)"
_PREFIX = re.compile(r"^PMIDs?\s*:?\s*", re.IGNORECASE)
# One item of a bracket: ids (one or more) and, optionally, the quote that follows them.
_ITEM = re.compile(
    rf"\s*(?P<ids>{_ID}(?:\s*[,;]\s*{_ID})*)\s*(?:[,:;\u2013\u2014-]?\s*{_QUOTE})?\s*[,;]?",
    re.IGNORECASE,
)
# A whole bracket, quotes and ids, is at most this long: the streaming stripper holds no more.
MAX_BRACKET_CHARS = MAX_QUOTE_CHARS + 200
_BRACKET = re.compile(
    rf"\[(?=[^\]]{{0,{MAX_BRACKET_CHARS - 2}}}\])"
    rf"(?P<body>\s*{_ID}[^\[\]\n]*?(?:{_QUOTE}[^\[\]\n]*?)+)\]",
    re.IGNORECASE,
)
_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\.\s*\.\s*\.|\u2026)\s*")


@dataclass(frozen=True, slots=True)
class Quoted:
    """One quote of a bracket and the PMIDs it was cited with; offsets into the text."""

    pmids: tuple[str, ...]
    quote: str  # as written, without its quote marks
    start: int  # of the quote marks (opening)
    end: int  # past the closing mark

    @property
    def parts(self) -> tuple[str, ...]:
        """The quote cut at each ellipsis: words that must appear in this order."""
        return quote_parts(self.quote)


@dataclass(frozen=True, slots=True)
class QuotedBracket:
    """A citation bracket holding at least one quote; offsets into the text as written."""

    start: int
    end: int
    quotes: tuple[Quoted, ...]
    bare: str  # the bracket without its quotes: ``[PMID:123]``, ``[PMID:1, PMID:2]``


def quote_parts(quote: str) -> tuple[str, ...]:
    """The quote's parts between ellipses, stripped; empty parts dropped."""
    return tuple(p.strip() for p in _ELLIPSIS.split(quote) if p.strip(" .,;:"))


def find_quoted(text: str) -> list[QuotedBracket]:
    """Every citation bracket in ``text`` that holds a quote, in order."""
    folded = fold(text)
    found = []
    for bracket in _BRACKET.finditer(folded.text):
        parsed = _read_body(bracket.group("body"), bracket.start("body"))
        if parsed is None:
            continue
        items, bare_ids = parsed
        start, end = folded.span(bracket.start(), bracket.end())
        quotes = []
        for pmids, quote_span in items:
            quote_start, quote_end = folded.span(*quote_span)
            quote = text[quote_start + 1 : quote_end - 1]
            quotes.append(Quoted(pmids, quote, quote_start, quote_end))
        found.append(QuotedBracket(start, end, tuple(quotes), f"[{bare_ids}]"))
    return found


def _read_body(
    body: str, offset: int
) -> tuple[list[tuple[tuple[str, ...], tuple[int, int]]], str] | None:
    """The bracket's items (the PMIDs each quote was cited with, and the quote's span with its
    marks) and its ids as the client should read them; None unless the whole body reads."""
    items: list[tuple[tuple[str, ...], tuple[int, int]]] = []
    waiting: list[str] = []  # ids not yet followed by a quote
    written: list[str] = []
    at = 0
    while at < len(body):
        item = _ITEM.match(body, at)
        if item is None or item.end() == at:
            return None
        ids = item.group("ids")
        written.append(ids.strip())
        waiting += [_PREFIX.sub("", one.strip()) for one in re.split(r"[,;]", ids)]
        if item.group("quote") is not None:
            mark_start = item.start("quote") - 1
            items.append((tuple(waiting), (offset + mark_start, offset + item.end("quote") + 1)))
            waiting = []
        at = item.end()
    if not items:
        return None
    return items, ", ".join(written)


def strip_quotes(text: str) -> tuple[str, tuple[StrippedQuote, ...]]:
    """``text`` with every quoted citation written bare (``[PMID:123]``), and the quotes taken
    out, each at the offsets of its bare bracket in the returned text."""
    parts: list[str] = []
    stripped: list[StrippedQuote] = []
    at = shift = 0
    for bracket in find_quoted(text):
        parts.append(text[at : bracket.start])
        start = bracket.start - shift
        end = start + len(bracket.bare)
        parts.append(bracket.bare)
        stripped += (StrippedQuote(start, end, q.pmids, q.quote) for q in bracket.quotes)
        shift += (bracket.end - bracket.start) - len(bracket.bare)
        at = bracket.end
    parts.append(text[at:])
    return "".join(parts), tuple(stripped)


def mask_quotes(text: str) -> str:
    """``text`` with the quotes of its quoted citations blanked out (spaces, so offsets hold):
    what claim decomposition and the sentence's own checks read, since a quote is evidence
    the sentence points at, not something it claims."""
    chars = list(text)
    for bracket in find_quoted(text):
        for quoted in bracket.quotes:
            chars[quoted.start : quoted.end] = " " * (quoted.end - quoted.start)
    return "".join(chars)
