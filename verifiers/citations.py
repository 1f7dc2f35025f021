"""Citation parsing and validation against the evidence that was given.

Recognised: ``[PMID:123]``, ``[PMID 123, 456]``, ``(PMID: 123)``, bare ``PMID 123``, ``[123]``,
quoted citations ``[PMID:123 "exact words"]`` (:mod:`verifiers.quoting.syntax`; the quote goes
into ``Citation.quote``)
and numbered references to the injected evidence list (``[1]``, ``[1, 3]``, ``[2-4]``). A bracketed
number of up to three digits is a numbered reference (PMIDs are longer); anything else is read as
a PMID. Client documents with non-numeric ids are cited by their id in brackets. A citation is
valid when it names evidence that was actually given; otherwise it is a fabricated reference
(verdict ``invalid_citation``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers._types import Citation
from verifiers.fold import fold
from verifiers.quoting.syntax import find_quoted

_ID_LIST = r"\d+(?:\s*(?:[,;]|and|[-\u2013])\s*(?:PMID[:\s]*)?\d+)*"
_BRACKETED = re.compile(
    rf"\s?[\[(]\s*(?P<pmid>PMIDs?\s*:?\s*)?(?P<ids>{_ID_LIST})\s*[\])]", re.IGNORECASE
)
# Outside brackets only PMID-length numbers joined by commas: "PMID 123 and 5 patients" is prose.
_BARE = re.compile(r"\s?\bPMIDs?\s*:?\s*(?P<ids>\d{4,}(?:\s*,\s*\d{4,})*)", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")
_RANGE = re.compile(r"(\d+)\s*[-\u2013]\s*(\d+)")
_MAX_REF_DIGITS = 3
_MAX_RANGE = 20  # a "range" wider than this is not a reference list


def parse_citations(sentence: str, evidence_ids: Sequence[str]) -> tuple[Citation, ...]:
    """All citations in ``sentence``; ``evidence_ids`` are the PMIDs of the evidence in the
    order it was injected (numbered reference ``[n]`` is ``evidence_ids[n - 1]``). Lookalikes
    are folded first (:mod:`verifiers.fold`); offsets and ``raw`` are of the sentence as
    written, the PMIDs in ASCII digits."""
    folded = fold(sentence)
    text = folded.text
    given = set(evidence_ids)
    found: list[Citation] = []
    taken: list[tuple[int, int]] = []
    for bracket in find_quoted(sentence):
        # Quoted citations first: their quotes may hold anything the patterns below would read.
        explicit = "pmid" in bracket.bare.casefold()
        raw = sentence[bracket.start : bracket.end]
        for quoted in bracket.quotes:
            for number in quoted.pmids:
                pmid = _resolve(number, explicit, evidence_ids)
                found.append(
                    Citation(raw, pmid, bracket.start, bracket.end, pmid in given, quoted.quote)
                )
        folded_start = folded.origin.index(bracket.start)
        taken.append((folded_start, folded_start + len(fold(raw).text)))
    for pattern in (_BRACKETED, _BARE):
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            explicit = pattern is _BARE or bool(match.group("pmid"))
            numbers = _expand(match.group("ids"))
            if not explicit and not _looks_like_citation(text, match, numbers):
                continue
            taken.append((match.start(), match.end()))
            start, end = folded.span(*_stripped(match))
            for number in numbers:
                pmid = _resolve(number, explicit, evidence_ids)
                found.append(Citation(sentence[start:end], pmid, start, end, pmid in given))
    for raw_span, name in _named(text, [i for i in evidence_ids if not i.isdigit()], taken):
        start, end = folded.span(*raw_span)
        found.append(Citation(sentence[start:end], name, start, end, name in given))
    found.sort(key=lambda c: c.start)
    return tuple(found)


def _stripped(match: re.Match[str]) -> tuple[int, int]:
    """The match's span without the whitespace it may begin with."""
    whole = match.group(0)
    return match.start() + len(whole) - len(whole.lstrip()), match.end()


def _named(
    sentence: str, names: Sequence[str], taken: list[tuple[int, int]]
) -> list[tuple[tuple[int, int], str]]:
    """Client documents may have non-numeric ids: a bracket holding exactly one of them cites it
    (``[doc-7]``), and ``[PMID:<any id>]`` cites whatever it names (valid only if given)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    bare = rf"(?P<id>{alternatives})" if names else r"(?!)"
    pattern = re.compile(
        rf"\s?[\[(]\s*(?:PMID\s*:?\s*(?P<named>[\w.-]*[A-Za-z][\w.-]*)|{bare})\s*[\])]",
        re.IGNORECASE,
    )
    found = []
    for match in pattern.finditer(sentence):
        if any(s < match.end() and match.start() < e for s, e in taken):
            continue
        found.append((_stripped(match), match.group("named") or match.group("id")))
    return found


def strip_citations(sentence: str, citations: Sequence[Citation]) -> str:
    """The sentence without its citation markers (what NLI should judge)."""
    spans = sorted({(c.start, c.end) for c in citations}, reverse=True)
    text = sentence
    for start, end in spans:
        before = text[:start].rstrip()
        text = before + text[end:]
    return text.strip()


def _expand(ids: str) -> list[str]:
    numbers: list[str] = []
    for part in re.split(r"\s*(?:[,;]|\band\b)\s*", ids):
        span = _RANGE.fullmatch(part.strip())
        low, high = (int(span.group(1)), int(span.group(2))) if span else (0, -1)
        if span and 0 < high - low <= _MAX_RANGE:
            numbers.extend(str(n) for n in range(low, high + 1))
        else:
            numbers.extend(_NUMBER.findall(part))
    return numbers


def _looks_like_citation(sentence: str, match: re.Match[str], numbers: list[str]) -> bool:
    """A bare number in parentheses is usually data ("(n = 12)", "(2019)"), not a citation:
    accept parentheses only around PMID-length numbers; square brackets always."""
    opener = match.group(0).lstrip()[0]
    if opener == "[":
        return True
    return all(len(n) >= 5 for n in numbers) and not sentence[: match.start()].endswith("=")


def _resolve(number: str, explicit_pmid: bool, evidence_ids: Sequence[str]) -> str:
    """A number that is a given PMID is that PMID; a short one is a numbered reference when it
    falls inside the list; anything else is taken as a PMID (and checked as one)."""
    if explicit_pmid or number in evidence_ids or len(number) > _MAX_REF_DIGITS:
        return number
    index = int(number) - 1
    return evidence_ids[index] if 0 <= index < len(evidence_ids) else number
