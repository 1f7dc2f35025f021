"""Claim-level scoring and metrics: macro-F1, per-class precision/recall/F1, confusion."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from verifiers._types import NLILabel
from verifiers.nli._base import NLIBackend, NLIPair, NLIScores
from verifiers.nli.decide import Decision, Rule, Thresholds, decide
from verifiers.training.benchmarks import AbstractItem
from verifiers.training.examples import LABEL_NAMES, windows

CLASS_NAMES: tuple[str, ...] = ("supported", "not_enough_evidence", "contradicted")
_LABEL_ID = {NLILabel(name): i for i, name in enumerate(LABEL_NAMES)}


@dataclass(frozen=True, slots=True)
class ClassMetrics:
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True, slots=True)
class Metrics:
    macro_f1: float
    accuracy: float
    per_class: dict[str, ClassMetrics]
    confusion: list[list[int]]  # rows gold, columns predicted, in CLASS_NAMES order


def metrics(gold: Sequence[int], predicted: Sequence[int]) -> Metrics:
    n = len(CLASS_NAMES)
    confusion = [[0] * n for _ in range(n)]
    for g, p in zip(gold, predicted, strict=True):
        confusion[g][p] += 1
    per_class: dict[str, ClassMetrics] = {}
    for c, name in enumerate(CLASS_NAMES):
        tp = confusion[c][c]
        predicted_c = sum(confusion[r][c] for r in range(n))
        gold_c = sum(confusion[c])
        precision = tp / predicted_c if predicted_c else 0.0
        recall = tp / gold_c if gold_c else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[name] = ClassMetrics(precision, recall, f1, gold_c)
    total = sum(map(sum, confusion))
    return Metrics(
        macro_f1=sum(m.f1 for m in per_class.values()) / n,
        accuracy=sum(confusion[c][c] for c in range(n)) / total if total else 0.0,
        per_class=per_class,
        confusion=confusion,
    )


def score_items(
    backend: NLIBackend, items: Sequence[AbstractItem], window_sizes: Sequence[int]
) -> list[list[NLIScores]]:
    """Window scores for every item, in one batched pass."""
    pairs: list[NLIPair] = []
    spans: list[tuple[int, int]] = []
    for item in items:
        start = len(pairs)
        pairs.extend(NLIPair(w, item.claim) for _, w in windows(item.sentences, window_sizes))
        spans.append((start, len(pairs)))
    scores = backend.predict(pairs)
    return [scores[a:b] for a, b in spans]


def decisions_all(scored: Sequence[Sequence[NLIScores]], thresholds: Thresholds) -> list[Decision]:
    """Each claim's ``Decision`` (label, confidence, deciding window) from its window scores."""
    return [decide(s, thresholds) for s in scored]


def label_ids(decisions: Iterable[Decision]) -> list[int]:
    """The decisions' labels as class indices in ``CLASS_NAMES`` order, as ``metrics`` takes."""
    return [_LABEL_ID[d.label] for d in decisions]


def decide_all(scored: Sequence[Sequence[NLIScores]], thresholds: Thresholds) -> list[int]:
    """Each claim's label as a class index in ``CLASS_NAMES`` order."""
    return label_ids(decisions_all(scored, thresholds))


def calibrate(
    scored: Sequence[Sequence[NLIScores]], gold: Sequence[int], rule: Rule = "or_join"
) -> tuple[Thresholds, float]:
    """Grid search of the rule's two thresholds for claim-level macro-F1 on held-out claims."""
    grid = [round(0.3 + 0.05 * i, 2) for i in range(14)]
    best = (Thresholds(rule=rule), -1.0)
    for a in grid:
        for b in grid:
            t = (
                Thresholds(rule="most_relevant", relevance=a, support=b)
                if rule == "most_relevant"
                else Thresholds(contradiction=a, entailment=b)
            )
            f1 = metrics(gold, decide_all(scored, t)).macro_f1
            if f1 > best[1]:
                best = (t, f1)
    return best
