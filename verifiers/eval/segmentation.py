"""Sentence-boundary precision, recall and F1 on SciFact (``veriproxy eval segmentation``).

SciFact ships every abstract as a list of sentences. Joining them with spaces gives a text whose
gold boundaries are the sentence starts; the segmenter's boundaries are compared with them
(a boundary is the offset where a sentence starts, the first one excluded). Plain pysbd is
measured beside it as the baseline.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

Segmenter = Callable[[str], set[int]]


@dataclass(slots=True)
class Tally:
    true_pos: int = 0
    false_pos: int = 0
    false_neg: int = 0

    def add(self, gold: set[int], predicted: set[int]) -> None:
        self.true_pos += len(gold & predicted)
        self.false_pos += len(predicted - gold)
        self.false_neg += len(gold - predicted)

    def line(self, name: str) -> str:
        p = self.true_pos / max(self.true_pos + self.false_pos, 1)
        r = self.true_pos / max(self.true_pos + self.false_neg, 1)
        f1 = 2 * p * r / max(p + r, 1e-12)
        return f"{name:<10} precision {p:.4f}  recall {r:.4f}  F1 {f1:.4f}"


def abstracts(data_dir: Path, limit: int | None) -> Iterator[list[str]]:
    with (data_dir / "scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for count, line in enumerate(fh):
            if limit is not None and count >= limit:
                return
            yield json.loads(line)["abstract"]


def gold_boundaries(sentences: list[str]) -> tuple[str, set[int]]:
    """The joined text and the offsets where its second, third, … sentences start."""
    text = " ".join(sentences)
    starts, offset = set(), 0
    for sentence in sentences:
        starts.add(offset + len(sentence) - len(sentence.lstrip()))
        offset += len(sentence) + 1
    end = len(text.rstrip())
    return text, {s for s in starts if 0 < s < end}


def ours(text: str) -> set[int]:
    from verifiers.segment import segment

    return {s.start for s in segment(text)[1:]}


def pysbd_only(text: str) -> set[int]:
    from verifiers.segment import pysbd_segmenter

    starts, offset = set(), 0
    for piece in pysbd_segmenter().segment(text):
        starts.add(offset + len(piece) - len(piece.lstrip()))
        offset += len(piece)
    return {s for s in starts if 0 < s < len(text.rstrip())}


SEGMENTERS: dict[str, Segmenter] = {"veriproxy": ours, "pysbd": pysbd_only}


def evaluate(abstracts: Iterable[list[str]]) -> tuple[int, dict[str, Tally]]:
    """How many abstracts were read, and each segmenter's tally against the gold boundaries."""
    tallies = {name: Tally() for name in SEGMENTERS}
    count = 0
    for sentences in abstracts:
        text, gold = gold_boundaries(sentences)
        for name, segmenter in SEGMENTERS.items():
            tallies[name].add(gold, segmenter(text))
        count += 1
    return count, tallies
