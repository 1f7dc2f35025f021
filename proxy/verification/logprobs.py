"""Token log-probabilities may only describe text the client was shown.

OpenAI's ``logprobs.content`` is a list of token entries (``token``, ``logprob``, ``bytes``,
``top_logprobs``) whose tokens, joined, spell the answer. When a policy withholds words (a
redacted or blocked sentence), the entries of those words would still spell them, and so would
their ``top_logprobs`` alternatives: they are dropped. An entry belongs to the sentence in which
its first character lies. When the tokens do not spell the answer exactly (a provider that
splits characters across tokens, a parts list, a JSON answer), nothing can be matched, and
every entry goes. Both modes of a stream and the non-streamed completion keep this rule:
``annotate`` forwards each chunk's entries with its text (both were delivered); ``gate`` holds
them with the text (:class:`TokenLog`) and releases them only with text shown as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proxy.streaming import StreamChunk

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


def shown_only(logprobs: object, answer: str, withheld: Sequence[Span]) -> object:
    """``logprobs`` with the entries of ``withheld`` text dropped (None: drop them all)."""
    if not withheld or logprobs is None:
        return logprobs
    entries = token_entries(logprobs)
    if entries is None or "".join(str(e["token"]) for e in entries) != answer:
        return None
    kept: list[Mapping[str, Any]] = []
    start = 0
    for entry in entries:
        if not any(a <= start < b for a, b in withheld):
            kept.append(entry)
        start += len(str(entry["token"]))
    assert isinstance(logprobs, Mapping)
    return {**logprobs, "content": kept}


class TokenLog:
    """Gate mode: the token entries of the held answer, each at its offset in the answer, handed
    out with the text they spell when that text is released. Entries of text that is never
    released (redacted, blocked) are never handed out. Once the tokens stop spelling the text
    (an unknown shape, a JSON answer), none are handed out at all."""

    def __init__(self) -> None:
        self._entries: list[tuple[int, Mapping[str, Any]]] = []
        self._length = 0
        self._aligned = True

    def add(self, logprobs: object, delta: str) -> None:
        start, self._length = self._length, self._length + len(delta)
        if logprobs is None or not self._aligned:
            return
        entries = token_entries(logprobs)
        if entries is None or "".join(str(e["token"]) for e in entries) != delta:
            self._aligned = False
            self._entries.clear()
            return
        for entry in entries:
            self._entries.append((start, entry))
            start += len(str(entry["token"]))

    def take(self, start: int, end: int) -> list[Mapping[str, Any]]:
        """The entries of the text at ``[start, end)``; earlier ones are dropped (withheld)."""
        taken = [entry for offset, entry in self._entries if start <= offset < end]
        self._entries = [(offset, entry) for offset, entry in self._entries if offset >= end]
        return taken


def with_token_entries(chunk: StreamChunk, entries: Sequence[Mapping[str, Any]]) -> StreamChunk:
    """A content chunk of ours with ``logprobs`` for the text it carries (none: unchanged)."""
    data = chunk.data
    if not entries or data is None:
        return chunk
    choices = [
        {**c, "logprobs": {"content": list(entries), "refusal": None}} for c in data["choices"]
    ]
    return StreamChunk.from_data({**data, "choices": choices})


def first_logprobs(data: Mapping[str, Any] | None) -> object:
    """The ``logprobs`` of choice 0 of a stream chunk (None when it has none)."""
    for choice in (data or {}).get("choices") or ():
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            return choice.get("logprobs")
    return None


def without_logprobs(data: Mapping[str, Any]) -> dict[str, Any]:
    """A chunk with its choices' ``logprobs`` removed (gate mode sends them with the text)."""
    choices = [
        {k: v for k, v in c.items() if k != "logprobs"} if isinstance(c, Mapping) else c
        for c in data.get("choices") or ()
    ]
    return {**data, "choices": choices} if "choices" in data else dict(data)
