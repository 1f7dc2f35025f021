"""``veriproxy eval segmentation``: sentence-boundary precision, recall and F1 on SciFact.

SciFact ships every abstract as a list of sentences. Joining them with spaces gives a text whose
gold boundaries are the sentence starts; the segmenter's boundaries are compared with them
(a boundary is the offset where a sentence starts, the first one excluded). Plain pysbd is
measured beside it as the baseline.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from proxy.cli._parser import add_data_dir

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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("segmentation", help="sentence boundary F1 on SciFact abstracts")
    add_data_dir(parser)
    parser.add_argument("--limit", type=int, help="only the first N abstracts")
    parser.set_defaults(func=run)


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


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    segmenters: dict[str, Segmenter] = {"veriproxy": ours, "pysbd": pysbd_only}
    tallies = {name: Tally() for name in segmenters}
    count = 0
    for sentences in tqdm(abstracts(args.data_dir, args.limit), desc="abstracts", unit="doc"):
        text, gold = gold_boundaries(sentences)
        for name, segmenter in segmenters.items():
            tallies[name].add(gold, segmenter(text))
        count += 1
    boundaries = tallies["veriproxy"].true_pos + tallies["veriproxy"].false_neg
    print(f"SciFact corpus: {count} abstracts, {boundaries} gold boundaries")
    for name, tally in tallies.items():
        print(tally.line(name))
    return 0
