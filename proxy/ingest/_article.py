"""The record every reader yields and every index stores."""

from __future__ import annotations

from dataclasses import dataclass

from verifiers import Evidence, EvidenceSentence, segment


@dataclass(frozen=True, slots=True)
class Article:
    """One abstract. ``sentences`` are (start, end) offsets into ``abstract``."""

    pmid: str
    title: str
    abstract: str
    sentences: tuple[tuple[int, int], ...]
    journal: str = ""
    year: int | None = None


@dataclass(frozen=True, slots=True)
class Deletion:
    """A ``DeleteCitation`` entry of a MEDLINE update file: drop this PMID from the index."""

    pmid: str


Record = Article | Deletion


def sentence_spans(abstract: str) -> tuple[tuple[int, int], ...]:
    """Split an abstract with the verifier's biomedical segmenter, so that evidence offsets and
    the verifier's sentence windows agree."""
    return tuple((s.start, s.end) for s in segment(abstract))


def join_sentences(sentences: list[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Join pre-split sentences with single spaces, keeping their offsets (no re-splitting)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    parts: list[str] = []
    for raw in sentences:
        text = raw.strip()
        if not text:
            continue
        if parts:
            pos += 1
        spans.append((pos, pos + len(text)))
        parts.append(text)
        pos += len(text)
    return " ".join(parts), tuple(spans)


def to_evidence(article: Article, *, score: float = 0.0, retriever: str = "") -> Evidence:
    """The shared evidence record for an article."""
    return Evidence(
        pmid=article.pmid,
        title=article.title,
        abstract=article.abstract,
        sentences=tuple(
            EvidenceSentence(article.abstract[s:e], s, e) for s, e in article.sentences
        ),
        journal=article.journal,
        year=article.year,
        score=score,
        retriever=retriever,
    )
