"""Citations as OpenAI-native annotations (``url_citation``), the shape clients already render.

Every answer with valid citations gets them, quoted or not: a chat completion in
``message.annotations``, a chat stream in the ``delta.annotations`` of its report chunk (after
the text, before the finish), the Responses API in its ``output_text`` part's ``annotations``
and, streamed, ``response.output_text.annotation.added`` events -- where OpenAI puts
web-search citations::

    {"type": "url_citation",
     "url_citation": {"start_index": 57, "end_index": 75,
                      "url": "https://pubmed.ncbi.nlm.nih.gov/12442934/", "title": "...",
                      "veriproxy": {"pmid": "12442934", "sentence": 0, "verdict": "supported",
                                    "quote": "...", "quote_status": "found"}}}

``start_index``/``end_index`` are the citation's bracket in the text the client received
(after ``quotes_in_text: strip`` and any redaction). ``veriproxy`` sits beside ``url`` and
``title`` (the SDKs keep unknown fields there: openai-python in ``model_extra``): the PMID, the
sentence's index in the report, its verdict, and the quote with its status (``null`` for a
plain citation).

Which citations: those that are valid (they name evidence that was given) and have a link
(:func:`citation_links`). Nothing withheld travels here: a sentence the client was not shown as
written (redacted, blocked, never released) has no annotations, and neither has a sentence
inside JSON (a structured answer, tool-call arguments), whose offsets are not into the content.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from policies import DecidedSentence
from proxy.evidence.documents import PUBMED_URL
from verifiers import Evidence, QuoteStatus, Verdict

EXTRA = "veriproxy"  # the field beside url and title


@dataclass(frozen=True, slots=True)
class Link:
    """Where a citation of one evidence id points."""

    url: str
    title: str


@dataclass(frozen=True, slots=True)
class UrlCitation:
    """One valid citation the client reads, with where its bracket is in the client's text."""

    start: int
    end: int
    link: Link
    pmid: str
    sentence: int
    verdict: Verdict
    quote: str = ""
    quote_status: QuoteStatus | None = None

    def extra(self) -> dict[str, Any]:
        return {
            "pmid": self.pmid,
            "sentence": self.sentence,
            "verdict": self.verdict.value,
            "quote": self.quote or None,
            "quote_status": self.quote_status.value if self.quote_status else None,
        }

    def fields(self) -> dict[str, Any]:
        return {
            "start_index": self.start,
            "end_index": self.end,
            "url": self.link.url,
            "title": self.link.title,
            EXTRA: self.extra(),
        }

    def chat(self) -> dict[str, Any]:
        """As a chat completion's message (or a stream's delta) holds it."""
        return {"type": "url_citation", "url_citation": self.fields()}

    def responses(self) -> dict[str, Any]:
        """As a Responses ``output_text`` part holds it."""
        return {"type": "url_citation", **self.fields()}


def citation_links(evidence: Iterable[Evidence], documents: Mapping[str, str]) -> dict[str, Link]:
    """The link of each evidence id: retrieved evidence is a PubMed record (its PubMed page);
    a client document has the link its request gave it (``documents``: its ``url``, or its
    PubMed page when it was named by its ``pmid``), else none."""
    links: dict[str, Link] = {}
    for ev in evidence:
        url = documents.get(ev.pmid) if ev.retriever == "client" else PUBMED_URL.format(ev.pmid)
        if url:
            links[ev.pmid] = Link(url, ev.title or f"PMID {ev.pmid}")
    return links


def url_citations(
    sentence: DecidedSentence, links: Mapping[str, Link], offset: int
) -> list[UrlCitation]:
    """A sentence's valid, linked citations; ``offset``: where the sentence starts in the text
    the client received. None for a withheld sentence or one inside JSON."""
    if sentence.withheld or sentence.path is not None:
        return []
    out = []
    for c in sentence.citations:
        link = links.get(c.pmid)
        if not c.valid or link is None:
            continue
        status = next(
            (q.status for q in sentence.quotes if q.pmid == c.pmid and q.quote == c.quote), None
        )
        out.append(
            UrlCitation(
                offset + c.start,
                offset + c.end,
                link,
                c.pmid,
                sentence.index,
                sentence.verdict,
                c.quote,
                status if c.quote else None,
            )
        )
    return out


def answer_citations(
    sentences: Sequence[DecidedSentence],
    links: Mapping[str, Link],
    replaced: Sequence[tuple[int, int, str]] = (),
) -> list[UrlCitation]:
    """The citations of a whole answer as the client received it: ``replaced`` are the
    ``(start, end, message)`` of the sentences whose words a policy replaced (their own
    citations are gone, and the text after them moved)."""
    out: list[UrlCitation] = []
    for s in sentences:
        shift = sum(len(m) - (end - start) for start, end, m in replaced if end <= s.start)
        out += url_citations(s, links, s.start + shift)
    return out


class StreamCitations:
    """A streamed choice's citations, gathered as its sentences are shown (each at its offset
    in the client's text then) and sent together in the ``delta.annotations`` of the report
    chunk: the stream helpers keep a list delta whole only when it comes once (openai-node's
    replaces it at each delta, openai-python's merges entries by an ``index`` they lack)."""

    def __init__(self, links: Mapping[str, Link]) -> None:
        self._links = links
        self._cited: list[UrlCitation] = []

    def add(self, sentence: DecidedSentence, offset: int) -> None:
        """``sentence`` was shown; it starts at ``offset`` in the client's text."""
        self._cited += url_citations(sentence, self._links, offset)

    def cited(self) -> tuple[UrlCitation, ...]:
        return tuple(self._cited)
