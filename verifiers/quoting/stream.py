"""Taking quotes out of an answer while it streams (``quotes_in_text: strip``).

:class:`QuoteStripper` is :func:`~verifiers.quoting.syntax.strip_quotes` for text that arrives
in pieces: :meth:`~QuoteStripper.feed` returns the text the client may read now and the quotes
taken out of it, :meth:`~QuoteStripper.flush` what is still held when the answer ends. However
a text is cut into deltas, the joined output and the quotes (offsets included) are those of
``strip_quotes`` on the whole text, for every bracket of at most :data:`MAX_BRACKET_CHARS`.

Only a bracket that may be a citation is held back: from a ``[`` followed (after spaces) by
``PMID`` or a digit -- or by the start of ``PMID``, or nothing yet, when the delta ends there --
to its closing ``]``; lookalikes are folded first, as :func:`~verifiers.quoting.find_quoted`
folds them. Every other character leaves in the delta that brought it. A bracket that can no
longer be a quoted citation -- still open after :data:`MAX_BRACKET_CHARS`, a line break after
its id, or the answer ended -- is released unchanged, and the text after its ``[`` is read
again (it may hold a citation of its own).

Why the output equals ``strip_quotes``: a quoted bracket starts at such a ``[`` and, since
neither its ids nor its quotes may hold a ``]``, ends at the first ``]`` after it. Released
text never holds the start of one; a held ``[`` is decided on the text up to that first ``]``
alone, which is exactly what ``find_quoted`` reads of it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from verifiers._types import StrippedQuote
from verifiers.fold import Folded, fold
from verifiers.quoting.syntax import MAX_BRACKET_CHARS, strip_quotes

# The longest bracket (``[`` to ``]``, folded) held back: one quote of the longest a quote may
# be, with room for several ids and their separators.
_START = re.compile(r"\[\s*(?:PMID|\d)", re.IGNORECASE)  # a bracket that may be a citation
_UNDECIDED = re.compile(r"\[\s*(?:P|PM|PMI)?\Z", re.IGNORECASE)  # one that may become so
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A bracket the stripper rewrote: ``start``/``end`` in the whole visible answer, and the
    bracket as the model wrote it (what a reader must get back when no annotation will carry
    its quotes)."""

    start: int
    end: int
    written: str


@dataclass(frozen=True, slots=True)
class Stripped:
    """What the client may read now, the quotes taken out of it (offsets into the whole
    visible answer, as :class:`~verifiers.StrippedQuote` has them) and the brackets rewritten."""

    text: str
    quotes: tuple[StrippedQuote, ...] = ()
    rewritten: tuple[Rewritten, ...] = ()


def as_written(visible: str, offset: int, rewritten: Sequence[Rewritten]) -> str:
    """``visible`` (the visible answer from ``offset`` on) with the ``rewritten`` brackets that
    lie wholly inside it put back as the model wrote them."""
    out: list[str] = []
    at = 0
    for bracket in sorted(rewritten, key=lambda b: b.start):
        start, end = bracket.start - offset, bracket.end - offset
        if start < at or end > len(visible):
            continue
        out += [visible[at:start], bracket.written]
        at = end
    out.append(visible[at:])
    return "".join(out)


class QuoteStripper:
    """One answer's text, stripped of its quotes as it streams."""

    def __init__(self) -> None:
        self._held = ""  # what arrived and is not yet released: a possible citation onwards
        self._visible = 0  # characters released so far (the client's text is this long)

    @property
    def held(self) -> str:
        """The text held back now (from a ``[`` that may start a citation)."""
        return self._held

    def feed(self, delta: str) -> Stripped:
        """The text ``delta`` lets the client read now, and the quotes taken out of it."""
        self._held += delta
        return self._drain(final=False)

    def flush(self) -> Stripped:
        """The answer ended: whatever is held, released (a bracket that never closed is not a
        quoted citation)."""
        return self._drain(final=True)

    def _drain(self, *, final: bool) -> Stripped:
        text = self._held
        folded = fold(text)
        out: list[str] = []
        quotes: list[StrippedQuote] = []
        rewritten: list[Rewritten] = []
        at = 0  # raw offset of the first character not yet released
        look = 0  # folded offset to look for the next bracket from
        while True:
            start = _candidate(folded.text, look)
            if start is None:
                out.append(text[at:])
                at = len(text)
                break
            raw_start = folded.origin[start]
            out.append(text[at:raw_start])
            at = raw_start
            close = folded.text.find("]", start + 1)
            if close != -1 and close - start < MAX_BRACKET_CHARS:
                raw_end = folded.origin[close] + 1
                visible, found = strip_quotes(text[raw_start:raw_end])
                shift = self._visible + sum(map(len, out))
                quotes += (
                    StrippedQuote(q.start + shift, q.end + shift, q.pmids, q.quote) for q in found
                )
                if visible != text[raw_start:raw_end]:
                    rewritten.append(
                        Rewritten(shift, shift + len(visible), text[raw_start:raw_end])
                    )
                out.append(visible)
                at, look = raw_end, _folded_at(folded, raw_end)
                continue
            if not (final or _dead(folded.text, start)):
                break  # wait for the closing bracket
            # Not a quoted citation: its "[" goes out as written; what follows is read again.
            at = folded.origin[start] + 1
            out.append(text[raw_start:at])
            look = _folded_at(folded, at)
        self._held = text[at:]
        released = "".join(out)
        self._visible += len(released)
        return Stripped(released, tuple(quotes), tuple(rewritten))


def _candidate(text: str, look: int) -> int | None:
    """The folded offset of the first ``[`` from ``look`` that starts, or may yet start, a
    citation; None when there is none."""
    at = text.find("[", look)
    while at != -1:
        if _START.match(text, at) or _UNDECIDED.match(text, at):
            return at
        at = text.find("[", at + 1)
    return None


def _dead(text: str, start: int) -> bool:
    """The bracket at ``start`` (open, no ``]`` yet) can no longer be a quoted citation: it
    is already too long for one, or a line break follows its first digit (ids and quotes are
    on one line)."""
    if len(text) - start >= MAX_BRACKET_CHARS:
        return True
    digit = _DIGIT.search(text, start)
    return digit is not None and "\n" in text[digit.end() :]


def _folded_at(folded: Folded, raw: int) -> int:
    """The first folded offset that comes from raw offset ``raw`` or later."""
    return bisect.bisect_left(folded.origin, raw)
