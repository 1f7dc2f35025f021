"""Candidate evidence windows for a claim: one to three consecutive abstract sentences, prefiltered.

Every abstract yields sliding windows of one to ``max_sentences`` sentences. A claim keeps only
the few windows per abstract that share the most content words with it and, when an encoder is
given, whose sentences are closest in embedding space; NLI then runs on those few instead of on
every window. Sentence embeddings are cached per abstract, so the sentences of one answer (and a
stream's later sentences) reuse them.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from verifiers._types import Evidence, EvidenceSentence
from verifiers.checks.normalise import content_tokens, with_abbreviations
from verifiers.segment import segment

LEXICAL_WEIGHT = 0.5  # the rest of the score is the embedding similarity
# Each extra sentence must earn its place: a longer window only wins when it covers more of the
# claim, since NLI scores dilute over text that says nothing about it.
SENTENCE_PENALTY = 0.05
_CACHE_SIZE = 512  # abstracts whose sentence embeddings are kept


class SentenceEncoder(Protocol):
    """What ``verifiers.embed.Encoder`` provides: unit-length rows, one per text."""

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


@dataclass(frozen=True, slots=True)
class Window:
    """Consecutive sentences ``first``..``last`` of one abstract; offsets into the abstract."""

    pmid: str
    title: str
    text: str
    start: int
    end: int
    first: int
    last: int
    score: float = 0.0


def evidence_sentences(evidence: Evidence) -> tuple[EvidenceSentence, ...]:
    """The record's sentences, segmenting the abstract when the record came without them."""
    if evidence.sentences:
        return evidence.sentences
    return tuple(EvidenceSentence(s.text, s.start, s.end) for s in segment(evidence.abstract))


def make_evidence(
    pmid: str,
    title: str,
    abstract: str | Sequence[str],
    **fields: Any,
) -> Evidence:
    """An ``Evidence`` record with sentence offsets, from an abstract given as text (segmented
    here) or as a list of sentences (joined with spaces, as SciFact and Check-COVID ship them).
    An item of the list that holds several sentences (a BioASQ snippet passage, a client's
    paragraph) is cut into them: the NLI premise, the quote path and the checks all read
    sentences, and a passage read as one let a negation in its next sentence flip a copied one."""
    if isinstance(abstract, str):
        text = abstract
        sentences = tuple(EvidenceSentence(s.text, s.start, s.end) for s in segment(text))
    else:
        parts: list[str] = []
        spans: list[EvidenceSentence] = []
        offset = 0
        for sentence in abstract:
            clean = sentence.strip()
            if clean:
                parts.append(clean)
                spans.extend(
                    EvidenceSentence(clean[a:b], offset + a, offset + b)
                    for a, b in _sentence_bounds(clean)
                )
                offset += len(clean) + 1
        text, sentences = " ".join(parts), tuple(spans)
    return Evidence(str(pmid), title, text, sentences, **fields)


def _sentence_bounds(text: str) -> list[tuple[int, int]]:
    """``text`` cut where the segmenter starts a sentence inside it, as (start, end) offsets;
    every character stays in a piece (the segmenter's own spans leave list markers out)."""
    cuts = [0, *(s.start for s in segment(text)[1:]), len(text)]
    bounds = []
    for a, b in itertools.pairwise(cuts):
        piece = text[a:b]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            bounds.append((a + lead, a + len(piece.rstrip())))
    return bounds


def build_windows(evidence: Evidence, max_sentences: int = 3) -> list[Window]:
    """All windows of 1..``max_sentences`` consecutive sentences of one abstract."""
    sentences = evidence_sentences(evidence)
    windows = []
    for first in range(len(sentences)):
        for last in range(first, min(first + max_sentences, len(sentences))):
            start, end = sentences[first].start, sentences[last].end
            text = evidence.abstract[start:end]
            windows.append(Window(evidence.pmid, evidence.title, text, start, end, first, last))
    return windows


class Abbreviations:
    """Short forms an abstract defines ("chenodeoxycholic acid (CDCA)"), found with scispaCy's
    rule-based abbreviation detector, so that overlap counts "CDCA" and "chenodeoxycholic acid"
    as the same words; also those a claim defines itself. Results are cached per abstract and
    per claim text."""

    def __init__(self) -> None:
        self._nlp: Any = None
        self._cache: OrderedDict[tuple[str, int], dict[str, frozenset[str]]] = OrderedDict()
        # Claims apart: the many claims of a stream must not push out the abstracts they cite.
        self._claims: OrderedDict[tuple[str, int], dict[str, frozenset[str]]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, evidence: Evidence) -> dict[str, frozenset[str]]:
        """Short-form token → the content tokens of its long form."""
        key = (evidence.pmid, hash(evidence.abstract))
        return self._cached(self._cache, key, _defining_text(evidence))

    def in_text(self, text: str) -> dict[str, frozenset[str]]:
        """The short forms a text of its own (a claim) defines, as ``of`` gives an abstract's:
        "acute respiratory distress syndrome (ARDS)" spells out "ARDS" where the text stands."""
        if "(" not in text:
            return {}  # the detector reads only "long form (SF)" and "SF (long form)"
        return self._cached(self._claims, ("", hash(text)), text)

    def _cached(
        self,
        cache: OrderedDict[tuple[str, int], dict[str, frozenset[str]]],
        key: tuple[str, int],
        text: str,
    ) -> dict[str, frozenset[str]]:
        with self._lock:
            if key not in cache:
                cache[key] = self._detect(text)
                while len(cache) > _CACHE_SIZE:
                    cache.popitem(last=False)
            cache.move_to_end(key)
            return cache[key]

    def _detect(self, text: str) -> dict[str, frozenset[str]]:
        if self._nlp is None:
            self._nlp = _abbreviation_pipeline()
        with warnings.catch_warnings():
            # W036: scispaCy's second-pass matcher is empty when nothing was defined.
            warnings.filterwarnings("ignore", message=r"\[W036\]", category=UserWarning)
            doc = self._nlp(text)
        forms: dict[str, frozenset[str]] = {}
        for abbreviation in doc._.abbreviations:
            short = content_tokens(abbreviation.text)
            if len(short) == 1:
                forms[next(iter(short))] = frozenset(content_tokens(abbreviation._.long_form.text))
        return forms


def _abbreviation_pipeline() -> Any:
    """A blank English spaCy pipeline with scispaCy's abbreviation detector.

    spaCy's thinc imports torch whenever it is installed (215 MiB of RSS in a serving process
    with the training extras) though a blank pipeline never runs it, so torch is hidden while
    spaCy is first imported, unless something in the process already loaded it.
    """
    hide = "torch" not in sys.modules
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` -> ImportError
    try:
        import scispacy.abbreviation  # noqa: F401 (registers the pipeline factory)
        import spacy
    finally:
        if hide:
            del sys.modules["torch"]
    nlp = spacy.blank("en")
    nlp.add_pipe("abbreviation_detector")
    return nlp


def _defining_text(evidence: Evidence) -> str:
    """Only the sentences that can define a short form: the detector finds "long form (SF)"
    within one sentence, so the rest of the abstract is work for nothing (it was most of the
    cost of a fresh abstract)."""
    parts = [evidence.title, *(s.text for s in evidence_sentences(evidence))]
    return " ".join(part for part in parts if "(" in part)


class WindowSelector:
    """Picks, for each claim, the best ``per_abstract`` windows of each candidate abstract (at
    most ``max_windows`` in all)."""

    def __init__(
        self,
        encoder: SentenceEncoder | None = None,
        *,
        per_abstract: int = 2,
        max_windows: int = 6,
        max_sentences: int = 3,
        abbreviations: bool = True,
    ) -> None:
        self._encoder = encoder
        self._abbreviations = Abbreviations() if abbreviations else None
        self.per_abstract = per_abstract
        self.max_windows = max_windows
        self.max_sentences = max_sentences
        self._cache: OrderedDict[tuple[str, int], NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def select(
        self, claims: Sequence[str], candidates: Sequence[Sequence[Evidence]]
    ) -> list[list[Window]]:
        """``candidates[i]`` is the evidence claim ``i`` may be checked against."""
        records = {ev.pmid: ev for group in candidates for ev in group}
        forms = {pmid: self.abbreviations(ev) for pmid, ev in records.items()}
        windows = {
            pmid: [
                (w, with_abbreviations(content_tokens(w.text), forms[pmid]))
                for w in build_windows(ev, self.max_sentences)
            ]
            for pmid, ev in records.items()
        }
        claim_vectors = self._claim_vectors(claims)
        sentence_vectors = {pmid: self._sentence_vectors(ev) for pmid, ev in records.items()}
        chosen = []
        for index, (claim, group) in enumerate(zip(claims, candidates, strict=True)):
            claim_tokens = content_tokens(claim)
            scored: list[Window] = []
            for ev in group:
                expanded = with_abbreviations(claim_tokens, forms[ev.pmid])
                vectors = sentence_vectors[ev.pmid]
                vector = None if claim_vectors is None else claim_vectors[index]
                ranked = sorted(
                    (
                        _scored(w, tokens, expanded, vector, vectors)
                        for w, tokens in windows[ev.pmid]
                    ),
                    key=lambda w: (-w.score, w.last - w.first),
                )
                scored.extend(ranked[: self.per_abstract])
            scored.sort(key=lambda w: -w.score)
            chosen.append(scored[: self.max_windows])
        return chosen

    def abbreviations(self, evidence: Evidence) -> dict[str, frozenset[str]]:
        """The short forms ``evidence`` defines: short-form token -> its long form's content
        tokens (cached per abstract; empty with abbreviation detection off)."""
        return {} if self._abbreviations is None else self._abbreviations.of(evidence)

    def defined_in(self, text: str) -> dict[str, frozenset[str]]:
        """The short forms ``text`` (a claim) defines itself, as ``abbreviations`` gives an
        abstract's (empty with abbreviation detection off)."""
        return {} if self._abbreviations is None else self._abbreviations.in_text(text)

    def _claim_vectors(self, claims: Sequence[str]) -> NDArray[np.float32] | None:
        if self._encoder is None or not claims:
            return None
        return self._encoder.encode(list(claims))

    def _sentence_vectors(self, evidence: Evidence) -> NDArray[np.float32] | None:
        if self._encoder is None:
            return None
        key = (evidence.pmid, hash(evidence.abstract))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        texts = [s.text for s in evidence_sentences(evidence)]
        vectors = self._encoder.encode(texts)
        with self._lock:
            self._cache[key] = vectors
            while len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return vectors


def _scored(
    window: Window,
    window_tokens: set[str],
    claim_tokens: set[str],
    claim_vector: NDArray[np.float32] | None,
    sentence_vectors: NDArray[np.float32] | None,
) -> Window:
    lexical = len(claim_tokens & window_tokens) / max(len(claim_tokens), 1)
    lexical -= SENTENCE_PENALTY * (window.last - window.first)
    if claim_vector is None or sentence_vectors is None or not len(sentence_vectors):
        score = lexical
    else:
        sims = sentence_vectors[window.first : window.last + 1] @ claim_vector
        score = LEXICAL_WEIGHT * lexical + (1 - LEXICAL_WEIGHT) * float(np.max(sims))
    return dataclasses.replace(window, score=round(score, 4))
