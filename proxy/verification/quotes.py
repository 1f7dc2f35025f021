"""What a client reads of a quoted citation (``retrieval.citations.quotes_in_text``).

``strip`` (the default): ``[PMID:123 "exact words"]`` reaches the client as ``[PMID:123]``, and
the quote travels in the annotations (``Citation.quote``, the sentence's ``quotes`` and the
``url_citation`` entries of :mod:`proxy.verification.annotations`). The verifier reads the very
text the client reads, and is handed each quote (:class:`~verifiers.StrippedQuote`) at the
offsets of its bare bracket, so it judges that citation with its quote. A stream is stripped
as it arrives (:class:`~verifiers.quoting.stream.QuoteStripper`): only a bracket that may be a
citation waits, up to its ``]``. ``keep``: the text stays as the model wrote it, and the verifier
reads the quotes from it.

Only an answer's plain text is stripped. A JSON answer and tool-call arguments keep their
quotes: their strings are the application's data, and the verifier reads the quotes there.
Token log-probabilities describe the words the model wrote: the entries that spell a bracket
the client reads otherwise are not sent (a stream's chunk whose text the stripper held or
changed goes without its entries), the others as before (:mod:`proxy.verification.logprobs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from proxy.settings.retrieval import QuoteDisplay
from proxy.verification.logprobs import shown_only
from proxy.verification.shapes import content_text
from verifiers import StrippedQuote
from verifiers.quoting import find_quoted, strip_quotes
from verifiers.quoting.stream import QuoteStripper, Stripped


@dataclass(frozen=True, slots=True)
class StrippedAnswer:
    """An answer's text as the client reads it, the quotes taken out of it, and the spans of
    the text as written that the client does not read as written (each quoted bracket)."""

    text: str
    quotes: tuple[StrippedQuote, ...] = ()
    rewritten: tuple[tuple[int, int], ...] = ()


def strip_answer(text: str, display: QuoteDisplay) -> StrippedAnswer:
    """A whole answer's text, stripped of its quotes when ``display`` says so."""
    if display is QuoteDisplay.KEEP:
        return StrippedAnswer(text)
    visible, quotes = strip_quotes(text)
    rewritten = tuple((b.start, b.end) for b in find_quoted(text))
    return StrippedAnswer(visible, quotes, rewritten)


def strip_entry(
    entry: object, display: QuoteDisplay, *, json_content: bool
) -> tuple[object, tuple[StrippedQuote, ...]]:
    """A completion's choice with its message's text as the client reads it, and the quotes
    taken out; the choice is returned as it was when there is nothing to strip (a JSON answer,
    no text, ``keep``). A parts list becomes its text, as :func:`render.message` sends it; the
    token entries that spell a rewritten bracket go."""
    if json_content or display is QuoteDisplay.KEEP or not isinstance(entry, Mapping):
        return entry, ()
    message = entry.get("message")
    if not isinstance(message, Mapping):
        return entry, ()
    text, reasons, _ = content_text(message.get("content"))
    if reasons or not text:  # a part the verifier does not read: the message stays whole
        return entry, ()
    stripped = strip_answer(text, display)
    if not stripped.rewritten:
        return entry, ()
    out: dict[str, Any] = {**entry, "message": {**message, "content": stripped.text}}
    if entry.get("logprobs") is not None:
        out["logprobs"] = shown_only(entry["logprobs"], text, stripped.rewritten)
    return out, stripped.quotes


class StreamQuotes:
    """One streamed choice's text as the client reads it, quotes taken out as they close."""

    def __init__(self, display: QuoteDisplay) -> None:
        self._stripper = QuoteStripper() if display is QuoteDisplay.STRIP else None

    def feed(self, delta: str) -> Stripped:
        return self._stripper.feed(delta) if self._stripper is not None else Stripped(delta)

    def flush(self) -> Stripped:
        return self._stripper.flush() if self._stripper is not None else Stripped("")

    def stop(self) -> Stripped:
        """Strip no more: what was held, released as written (an open bracket); the text from
        here on passes as it comes."""
        rest = self.flush()
        self._stripper = None
        return rest
