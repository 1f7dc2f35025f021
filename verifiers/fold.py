"""Folding Unicode lookalikes, so that what reads as a citation is parsed as one.

A model (or a hostile upstream) can write ``PMID`` with a zero-width joiner inside, in
full-width brackets, colon and digits (``\uff3bPMID\uff1a\uff19\uff19\uff3d``), with bidi
marks around the digits, a combining mark on a digit or digits of another script.
:func:`fold` undoes all of these: NFKC, format characters (category Cf) removed, combining
marks (Mn, Me) removed, every decimal digit written in ASCII.
It keeps a map back to the original text, so spans found in the folded text are spans of the
original (a citation's ``start``/``end`` stay offsets into the sentence as written). The
evidence injection (``proxy.evidence.inject``) folds the same lookalikes out of evidence text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

_DROPPED = frozenset({"Cf", "Mn", "Me"})


@dataclass(frozen=True, slots=True)
class Folded:
    """The folded text and, for each of its characters, the offset it came from."""

    text: str
    origin: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of folded ``[start, end)`` (``end`` past the last source char)."""
        if start >= end:
            at = self.origin[start] if start < len(self.origin) else self._length
            return at, at
        return self.origin[start], self.origin[end - 1] + 1

    @property
    def _length(self) -> int:
        return self.origin[-1] + 1 if self.origin else 0


def fold(text: str) -> Folded:
    out: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        folded = char if char.isascii() else fold_char(char)
        out.append(folded)
        origin.extend([i] * len(folded))
    return Folded("".join(out), tuple(origin))


def fold_text(text: str) -> str:
    """:func:`fold` without the map back (only non-ASCII characters are looked at)."""
    return text if text.isascii() else _NON_ASCII.sub(lambda m: fold_char(m.group()), text)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@functools.lru_cache(maxsize=4096)
def fold_char(char: str) -> str:
    """One character folded: NFKC, format characters and combining marks dropped, digits in
    ASCII (may be several characters, or none)."""
    out = []
    for c in unicodedata.normalize("NFKC", char):
        if unicodedata.category(c) in _DROPPED:
            continue
        digit = unicodedata.decimal(c, None)
        out.append(str(digit) if digit is not None else c)
    return "".join(out)
