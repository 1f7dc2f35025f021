"""A quoted citation checked character for character against the abstract it cites.

Both texts are normalised the same way (case, Unicode forms and lookalikes, dashes, quote marks,
hyphenation and spacing: :func:`~verifiers.checks.normalise.normalise_mapped`), so a quote that
differs only in typography is found, at offsets into the abstract as written. A quote cut with
an ellipsis is found when its parts appear in order. Matches must start and end on word
boundaries: "5 mg" is not found inside "25 mg".

A quote in none of the cited abstracts is looked for in the rest of the evidence
(``other_abstract``); in none at all it is a ``misquote``, reported with the cited abstract's
closest words and what differs, e.g. a changed number.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from verifiers._types import Evidence, QuoteCheck, QuoteSpan, QuoteStatus
from verifiers.checks.normalise import normalise_mapped
from verifiers.fold import Folded
from verifiers.quoting.syntax import quote_parts

_WORD = re.compile(r"\w+(?:[.,]\d+)*%?")
_EDGE_PUNCTUATION = " .,;:"
MAX_DIFFERENCES = 3  # changes named in ``QuoteCheck.difference``


@dataclass(frozen=True, slots=True)
class _Field:
    """One searchable text of a record (its abstract or its title), normalised with a map."""

    evidence: Evidence
    text: str
    normalised: Folded
    in_title: bool


def check_quote(
    quote: str, cited: Sequence[Evidence], others: Sequence[Evidence] = ()
) -> QuoteCheck:
    """Where ``quote`` (as written, without its quote marks) is: in one of the ``cited``
    records, else in one of ``others``, else nowhere (a misquote, with the closest words of
    the first cited record)."""
    pmid = cited[0].pmid if cited else ""
    parts = [_needle(p) for p in quote_parts(quote)]
    parts = [p for p in parts if p]
    if not parts:
        return QuoteCheck(pmid, quote, QuoteStatus.MISQUOTE, difference="the quote holds no words")
    for status, records in ((QuoteStatus.FOUND, cited), (QuoteStatus.OTHER_ABSTRACT, others)):
        for record in records:
            spans = _locate(parts, record)
            if spans is not None:
                return QuoteCheck(
                    record.pmid if status is QuoteStatus.FOUND else pmid,
                    quote,
                    status,
                    spans=spans,
                    found_in=record.pmid,
                )
    if not cited:
        return QuoteCheck(pmid, quote, QuoteStatus.MISQUOTE, difference="no abstract was cited")
    closest, difference = _closest(" ".join(quote_parts(quote)), cited[0])
    return QuoteCheck(pmid, quote, QuoteStatus.MISQUOTE, closest=closest, difference=difference)


def _needle(part: str) -> str:
    return normalise_mapped(part).text.strip(_EDGE_PUNCTUATION)


# Every quote of an answer is looked for in the same few abstracts (the cited ones, then the
# rest of the evidence): each is normalised once, not once per quote.
@functools.lru_cache(maxsize=256)
def _normalised(text: str) -> Folded:
    return normalise_mapped(text)


def _fields(record: Evidence) -> list[_Field]:
    return [
        _Field(record, record.abstract, _normalised(record.abstract), False),
        _Field(record, record.title, _normalised(record.title), True),
    ]


def _locate(parts: Sequence[str], record: Evidence) -> tuple[QuoteSpan, ...] | None:
    """The spans of ``parts`` found in order within one field of ``record``; None if not."""
    for field in _fields(record):
        spans: list[QuoteSpan] = []
        at = 0
        for part in parts:
            found = _find_word_aligned(field.normalised.text, part, at)
            if found is None:
                break
            start, end = field.normalised.span(found, found + len(part))
            spans.append(QuoteSpan(field.text[start:end], start, end, field.in_title))
            at = found + len(part)
        else:
            return tuple(spans)
    return None


def _find_word_aligned(haystack: str, needle: str, start: int) -> int | None:
    """The first index at or after ``start`` where ``needle`` occurs with word boundaries on
    both sides (where the needle itself begins or ends with a word character)."""
    at = haystack.find(needle, start)
    while at != -1:
        before = haystack[at - 1] if at > 0 else " "
        after = haystack[at + len(needle)] if at + len(needle) < len(haystack) else " "
        open_ok = not (needle[0].isalnum() and before.isalnum())
        close_ok = not (needle[-1].isalnum() and after.isalnum())
        if open_ok and close_ok:
            return at
        at = haystack.find(needle, at + 1)
    return None


def _closest(quote: str, record: Evidence) -> tuple[QuoteSpan | None, str]:
    """The run of the record's abstract words most like the quote's (as many words as the
    quote has), and the words that differ."""
    field = _fields(record)[0]
    words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(field.normalised.text)]
    wanted = _WORD.findall(normalise_mapped(quote).text)
    if not words or not wanted:
        return None, "the cited abstract holds no words"
    size = min(len(wanted), len(words))
    best, best_score = 0, (-1.0, -1)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted)
    for first in range(len(words) - size + 1):
        run = [w for w, _, _ in words[first : first + size]]
        matcher.set_seq1(run)
        # Equal ratios: the run whose words line up with the quote's, position by position.
        score = (matcher.ratio(), sum(a == b for a, b in zip(run, wanted, strict=False)))
        if score > best_score:
            best, best_score = first, score
    chosen = words[best : best + size]
    start, end = field.normalised.span(chosen[0][1], chosen[-1][2])
    closest = QuoteSpan(field.text[start:end], start, end)
    return closest, _difference([w for w, _, _ in chosen], wanted)


def _difference(abstract_words: list[str], quote_words: list[str]) -> str:
    """What the quote changed, e.g. "quote says '15%' where the abstract says '12%'"."""
    matcher = difflib.SequenceMatcher(None, abstract_words, quote_words, autojunk=False)
    changes = []
    for tag, a1, a2, q1, q2 in matcher.get_opcodes():
        source, quoted = " ".join(abstract_words[a1:a2]), " ".join(quote_words[q1:q2])
        if tag == "replace":
            changes.append(f"quote says '{quoted}' where the abstract says '{source}'")
        elif tag == "insert":
            changes.append(f"quote adds '{quoted}'")
        elif tag == "delete":
            changes.append(f"quote leaves out '{source}'")
    if not changes:
        return "the words differ only in order or spacing from the closest passage"
    more = len(changes) - MAX_DIFFERENCES
    shown = "; ".join(changes[:MAX_DIFFERENCES])
    return shown + (f"; and {more} more change(s)" if more > 0 else "")
