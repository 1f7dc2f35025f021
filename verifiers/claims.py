"""Check-worthiness and decomposition of a sentence into atomic claims.

The rule-based decomposer cuts a sentence only at clause boundaries (";", "whereas", ", but",
", while", ", and" before a new clause) and never inside a clause, so every claim keeps its
negation, quantities and time qualifiers; each claim is a verbatim slice of the sentence with its
offsets. ``LLMDecomposer`` (in ``verifiers.llm_claims``) is the optional alternative.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from verifiers.checks.normalise import content_tokens

# Sentences that assert nothing about the world: questions, greetings, meta talk, hedges,
# disclaimers and headings.
_NOT_CHECKWORTHY = re.compile(
    r"^\W*(?:hi|hello|hey|thanks?|thank you|sure|certainly|of course|great question|good question"
    r"|i hope this helps|hope this helps|let me know|feel free|please (?:note|consult|see|ask)"
    r"|here (?:is|are)|below (?:is|are)|the following|in summary|to summarize|to summarise"
    r"|in conclusion"
    r"|overall,? (?:the )?(?:evidence|studies|literature) (?:is|are) (?:mixed|limited)"
    r"|based on the (?:provided |given )?(?:evidence|abstracts|studies|sources)[^,]*:"
    r"|i (?:am|'m) (?:not|an ai)|as an ai|i cannot|i can't|i don't know|i do not know"
    r"|it is (?:unclear|not clear|difficult to say)|more research is needed"
    r"|further (?:research|studies) (?:is|are) needed|consult (?:your|a) (?:doctor|physician)"
    r"|this is not medical advice)",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r";\s+|,?\s+whereas\s+|,\s+but\s+|,\s+while\s+|,\s+although\s+|,\s+and\s+(?=\w+\s+\w+\s+\w+)"
)
MIN_CLAIM_WORDS = 4  # a shorter fragment is a qualifier of its neighbour, not a claim
MIN_CONTENT_TOKENS = 2


@dataclass(frozen=True, slots=True)
class ClaimSpan:
    """An atomic claim: its text and its offsets in the sentence it came from."""

    text: str
    start: int
    end: int


class Decomposer(Protocol):
    """Splits a sentence into atomic claims; rule-based and LLM versions implement it."""

    name: str

    def decompose(self, sentence: str) -> list[ClaimSpan]: ...


def is_checkworthy(sentence: str) -> bool:
    """False for questions, greetings, meta sentences, hedges and bare headings."""
    stripped = sentence.strip().strip("*_#> ")
    if not stripped or stripped.endswith("?") or _NOT_CHECKWORTHY.match(stripped):
        return False
    if stripped.endswith(":") and len(stripped.split()) <= 8:
        return False
    return len(content_tokens(stripped)) >= MIN_CONTENT_TOKENS


class RuleDecomposer:
    """Clause-level splitting that keeps qualifiers with their clause."""

    name = "rules"

    def decompose(self, sentence: str) -> list[ClaimSpan]:
        cuts = [(0, 0)]
        for match in _CLAUSE_BREAK.finditer(sentence):
            if _depth(sentence, match.start()) == 0:
                cuts.append((match.start(), match.end()))
        cuts.append((len(sentence), len(sentence)))
        pieces = [(cuts[i][1], cuts[i + 1][0]) for i in range(len(cuts) - 1)]
        merged: list[tuple[int, int]] = []
        for start, end in pieces:
            short = len(sentence[start:end].split()) < MIN_CLAIM_WORDS
            if merged and (short or _words(sentence, merged[-1]) < MIN_CLAIM_WORDS):
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        return [_span(sentence, start, end) for start, end in merged]


def _words(sentence: str, span: tuple[int, int]) -> int:
    return len(sentence[span[0] : span[1]].split())


def _depth(text: str, index: int) -> int:
    """Bracket depth at ``index``: clause breaks inside parentheses do not split."""
    depth = 0
    for char in text[:index]:
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
    return depth


def _span(sentence: str, start: int, end: int) -> ClaimSpan:
    raw = sentence[start:end]
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    return ClaimSpan(text, start + lead, start + lead + len(text))
