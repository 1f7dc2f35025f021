"""Claim-level scoring and metrics: macro-F1, per-class precision/recall/F1, confusion."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from verifiers._types import NLILabel
from verifiers.nli._base import NLIBackend, NLIPair, NLIScores
from verifiers.nli.decide import Decision, Rule, Thresholds, decide
from verifiers.training.benchmarks import AbstractItem
from verifiers.training.examples import LABEL_NAMES, windows

CLASS_NAMES: tuple[str, ...] = ("supported", "not_enough_evidence", "contradicted")
SUPPORTED_ID, CONTRADICTED_ID = CLASS_NAMES.index("supported"), CLASS_NAMES.index("contradicted")
GRID = tuple(round(0.3 + 0.05 * i, 2) for i in range(14))
REFUTE_GRID = tuple(round(0.05 * i, 2) for i in range(1, 19))
# ``train-nli --false-alarm-ceiling X``: the share of held-out supported claims a decision rule
# may call contradicted. Off by default (macro-F1 alone). On model 14784792a400 a 0.10 ceiling
# (refute 0.25) cut false contradictions on whole answers from 0.114 to 0.065 but lost most
# contradictions on the claim benchmarks (HealthVer contradicted F1 0.324 -> 0.105), so it is a
# deployment's choice, not the default (docs/nli-model.md).
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
    scored: Sequence[Sequence[NLIScores]],
    gold: Sequence[int],
    rule: Rule = "or_join",
    false_alarm_ceiling: float | None = None,
) -> tuple[Thresholds, float]:
    """Grid search of the rule's thresholds for claim-level macro-F1 on held-out claims (for
    ``most_relevant``, within ``false_alarm_ceiling`` when one is given)."""
    if rule == "most_relevant":
        return _calibrate_most_relevant(scored, gold, false_alarm_ceiling)
    best = (Thresholds(rule=rule), -1.0)
    for a in GRID:
        for b in GRID:
            t = Thresholds(contradiction=a, entailment=b)
            f1 = metrics(gold, decide_all(scored, t)).macro_f1
            if f1 > best[1]:
                best = (t, f1)
    return best


def false_alarm_rate(gold: Sequence[int], predicted: Sequence[int]) -> float:
    """The share of supported claims predicted contradicted."""
    called = [p for g, p in zip(gold, predicted, strict=True) if g == SUPPORTED_ID]
    return sum(p == CONTRADICTED_ID for p in called) / max(len(called), 1)


def _calibrate_most_relevant(
    scored: Sequence[Sequence[NLIScores]], gold: Sequence[int], ceiling: float | None
) -> tuple[Thresholds, float]:
    """Relevance and support thresholds for the best macro-F1; then, when that calls more than
    ``ceiling`` of the supported claims contradicted, the highest refute threshold
    that keeps within it (or, where none does, the one with the fewest false alarms). The
    ceiling only moves claims from contradicted to neutral, never to supported."""
    # The rule reads only each claim's most relevant window: decide on that one alone.
    tops = [[min(s, key=lambda x: x.neutral)] if s else [] for s in scored]

    def scored_as(t: Thresholds) -> tuple[float, float]:
        predicted = decide_all(tops, t)
        return metrics(gold, predicted).macro_f1, false_alarm_rate(gold, predicted)

    best, (best_f1, alarms) = Thresholds(rule="most_relevant"), (-1.0, 1.0)
    for a in GRID:
        for b in GRID:
            t = Thresholds(rule="most_relevant", relevance=a, support=b)
            f1, rate = scored_as(t)
            if f1 > best_f1:
                best, best_f1, alarms = t, f1, rate
    if ceiling is None or alarms <= ceiling:
        return best, best_f1
    banded = [
        (replace(best, refute=r), *scored_as(replace(best, refute=r)))
        for r in REFUTE_GRID
        if r < best.support
    ]
    within = [b for b in banded if b[2] <= ceiling]
    chosen = (
        max(within, key=lambda b: b[0].refute or 0.0)
        if within
        else min(banded, key=lambda b: (b[2], -(b[0].refute or 0.0)), default=(best, best_f1, 0))
    )
    return chosen[0], chosen[1]
