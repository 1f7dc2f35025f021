"""Token log-probabilities may only describe text the client was shown.

OpenAI's ``logprobs.content`` is a list of token entries (``token``, ``logprob``, ``bytes``,
``top_logprobs``) whose tokens, joined, spell the answer. When a policy withholds words (a
redacted or blocked sentence), the entries of those words would still spell them, and so would
their ``top_logprobs`` alternatives: they are dropped. An entry that overlaps withheld text at
all is withheld (a token may begin in the space before a sentence). When the tokens do not spell
the answer exactly (a provider that splits characters across tokens, a parts list, a JSON
answer), nothing can be matched, and every entry goes. What is sent is rendered
(:mod:`proxy.verification.render`): token, logprob and bytes, and the same of each
alternative. Both modes of a stream and the non-streamed completion keep this rule:
``annotate`` forwards each chunk's entries with its text (both were delivered); ``gate`` holds
them with the text (:class:`TokenLog`) and releases them only with text shown as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proxy.verification import render

Span = tuple[int, int]  # [start, end) character offsets into the answer


def token_entries(logprobs: object) -> list[Mapping[str, Any]] | None:
    """The token entries of a ``logprobs`` object, or None when it has none in OpenAI's shape."""
    if not isinstance(logprobs, Mapping):
        return None
    content = logprobs.get("content")
    if not isinstance(content, list):
        return None
    if not all(isinstance(e, Mapping) and isinstance(e.get("token"), str) for e in content):
        return None
    return list(content)


def shown_only(logprobs: object, answer: str, withheld: Sequence[Span] | None) -> object:
    """``logprobs`` rendered with the entries that overlap ``withheld`` text dropped (None for
    ``withheld``: the withheld text cannot be located, so every entry goes)."""
    entries = token_entries(logprobs)
    if entries is None or withheld is None:
        return None
    if not withheld:
        return render.logprobs(entries)
    if "".join(str(e["token"]) for e in entries) != answer:
        return None
    kept: list[Mapping[str, Any]] = []
    start = 0
    for entry in entries:
        end = start + len(str(entry["token"]))
        if not any(start < b and a < end for a, b in withheld):
            kept.append(entry)
        start = end
    return render.logprobs(kept)


class TokenLog:
    """Gate mode: the token entries of the held answer, each with its span in the answer, handed
    out only once all of that span is released as written. An entry that overlaps text never
    released (redacted, blocked) is never handed out -- a token " ZEBRAQUUX" begins in the gap
    before its sentence. Once the tokens stop spelling the text (an unknown shape, a JSON
    answer), none are handed out at all."""

    def __init__(self) -> None:
        self._entries: list[tuple[int, int, Mapping[str, Any]]] = []
        self._length = 0
        self._aligned = True

    def add(self, logprobs: object, delta: str) -> None:
        start, self._length = self._length, self._length + len(delta)
        if not self._aligned or (logprobs is None and not delta):
            return
        entries = token_entries(logprobs)
        if entries is None or "".join(str(e["token"]) for e in entries) != delta:
            self._aligned = False
            self._entries.clear()
            return
        for entry in entries:
            end = start + len(str(entry["token"]))
            self._entries.append((start, end, entry))
            start = end

    def skip(self, text: str) -> None:
        """Text with no token entries to go with it (quotes stripped: the entries spell the
        words as the model wrote them)."""
        self._length += len(text)

    def release(self, end: int) -> list[Mapping[str, Any]]:
        """The entries wholly inside the text up to ``end``, which is shown as written."""
        taken = [entry for _, stop, entry in self._entries if stop <= end]
        self._entries = [e for e in self._entries if e[1] > end]
        return taken

    def withhold(self, end: int) -> None:
        """Drop every entry that begins before ``end``: it spells withheld text."""
        self._entries = [e for e in self._entries if e[0] >= end]
