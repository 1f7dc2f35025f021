"""Claims that repeat their evidence word for word.

A claim that is, after normalisation (``verifiers.checks.normalise``), a whole clause of the
evidence it is judged against needs no model to be called supported: it says what the evidence
says. The small NLI model gets these wrong surprisingly often (a conclusion copied verbatim
called "contradiction" at 0.5-0.7), and each of those is a false alarm on a faithful answer.

"Whole clause" is what keeps the rule safe: the words must start the evidence sentence or
follow a clause boundary (";", ":", ", but", ", and", ", whereas", ", while", ", although",
each optionally with "that"), and end the sentence or meet ";". So "it is unclear whether
aspirin reduces stroke" never makes "aspirin reduces stroke" a restatement, nor "aspirin
reduced mortality, but only in women" one of "aspirin reduced mortality". The deterministic
checks still run on a restated claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from verifiers.checks.normalise import normalise, normalise_mapped
from verifiers.claims import MIN_CLAIM_WORDS
from verifiers.segment import segment
from verifiers.windows import Window

# The calibrated confidence of the bundled model does not apply to a verdict it did not give.
# On the held-out answers 1,298 claims were restated, none of them wrong (docs/nli-model.md,
# "Restated claims and the clause splitter").
RESTATED_CONFIDENCE = 0.99
RESTATED_BY = "restatement"  # a restated claim's ``decided_by``: no model gave its verdict
_CLAUSE_START = r"(?:^|[.;:!?]\s+|,\s+(?:but|and|whereas|while|although)\s+(?:that\s+)?)"
_CLAUSE_END = r"(?=\s*(?:[.;!?](?:\s|$)|$))"
_TRAILING = " .;:!?"


def restated_sentence(claim: str, windows: Sequence[Window]) -> Window | None:
    """The sentence holding ``claim`` word for word as a whole clause (see the module's
    docstring) in the first of ``windows`` that does, as a window of its own (a window, or a
    record's "sentence" such as a BioASQ snippet, may hold more sentences, and the checks must
    read the restated one); None when no window holds it."""
    copy = _Copy.of(claim)
    if copy is None:
        return None
    for window in windows:
        found = copy.in_text(window.text)
        if found is not None:
            return _sentence_of(window, *found)
    return None


def restates(claim: str, texts: Iterable[str]) -> bool:
    """Whether one of ``texts`` holds ``claim`` word for word as a whole clause."""
    copy = _Copy.of(claim)
    return copy is not None and any(copy.in_text(text) is not None for text in texts)


@dataclass(frozen=True, slots=True)
class _Copy:
    """A claim's words as a restatement of them is looked for."""

    plain: str  # normalised: the cheap test
    words: str  # normalised with the character map's fold, as the clause is matched
    pattern: re.Pattern[str]

    @classmethod
    def of(cls, claim: str) -> _Copy | None:
        words = normalise_mapped(claim).text.rstrip(_TRAILING)
        if len(words.split()) < MIN_CLAIM_WORDS:
            return None
        pattern = re.compile(_CLAUSE_START + re.escape(words) + _CLAUSE_END)
        return cls(normalise(claim).rstrip(_TRAILING), words, pattern)

    def in_text(self, text: str) -> tuple[int, int] | None:
        """Where in ``text`` (its own offsets) the claim stands as a whole clause."""
        if self.plain not in normalise(text):
            return None  # the common case, told cheaply; the mapped fold is per character
        folded = normalise_mapped(text)
        match = self.pattern.search(folded.text)
        if match is None:
            return None
        return folded.span(match.end() - len(self.words), match.end())


def _sentence_of(window: Window, start: int, end: int) -> Window:
    """The sentences of ``window`` that ``window.text[start:end]`` touches, as a window."""
    pieces = [p for p in segment(window.text) if p.start < end and start < p.end]
    first, last = (pieces[0].start, pieces[-1].end) if pieces else (start, end)
    return replace(
        window,
        text=window.text[first:last],
        start=window.start + first,
        end=window.start + last,
    )
