"""How well a confidence ranks and predicts a verifier's own errors.

- **error capture** at a fraction f: the share of all wrong verdicts among the least confident
  f of the claims (what escalating that fraction to a judge would catch; a random choice
  catches f). It cannot exceed f / error rate.
- **AURC**: the area under the risk-coverage curve (the error rate of the most confident k
  claims, averaged over k); lower is better.
- **reliability**: claims binned by confidence, each bin's mean confidence against its
  accuracy, and the expected calibration error (their gap, weighted by the bins' sizes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

CAPTURE_FRACTIONS: tuple[float, ...] = (0.1, 0.2, 0.3)
_EPSILON = 1e-9


def error_capture(
    confidence: Sequence[float],
    right: Sequence[bool | int],
    fractions: Sequence[float] = CAPTURE_FRACTIONS,
) -> dict[int, float]:
    """Percent escalated -> share of all errors among the least confident claims (stable sort:
    ties keep their input order)."""
    if len(confidence) != len(right):
        raise ValueError(f"{len(confidence)} confidences for {len(right)} outcomes")
    errors = sum(not r for r in right)
    order = sorted(range(len(confidence)), key=lambda i: confidence[i])
    out: dict[int, float] = {}
    for f in fractions:
        cut = math.floor(f * len(order) + _EPSILON)
        caught = sum(not right[i] for i in order[:cut])
        out[round(f * 100)] = round(caught / errors, 4) if errors else 0.0
    return out


def capture_ceiling(right: Sequence[bool | int], fraction: float) -> float:
    """The best error capture any ranking could reach at ``fraction`` (all escalated wrong)."""
    errors = sum(not r for r in right)
    if not errors:
        return 0.0
    return round(min(1.0, math.floor(fraction * len(right) + _EPSILON) / errors), 4)


def aurc(confidence: Sequence[float], right: Sequence[bool | int]) -> float:
    """Area under the risk-coverage curve, most confident first."""
    order = sorted(range(len(confidence)), key=lambda i: -confidence[i])
    wrong = 0
    total = 0.0
    for k, i in enumerate(order, start=1):
        wrong += not right[i]
        total += wrong / k
    return round(total / len(order), 4) if order else 0.0


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    low: float
    high: float
    claims: int
    mean_confidence: float
    accuracy: float


def reliability(
    confidence: Sequence[float], right: Sequence[bool | int], bins: int = 10
) -> tuple[list[ReliabilityBin], float]:
    """Equal-width bins over [0, 1] (empty ones left out) and the expected calibration error."""
    rows: list[ReliabilityBin] = []
    ece = 0.0
    n = len(confidence)
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [
            i for i, c in enumerate(confidence) if low <= c < high or (b == bins - 1 and c == high)
        ]
        if not members:
            continue
        mean = sum(confidence[i] for i in members) / len(members)
        accuracy = sum(bool(right[i]) for i in members) / len(members)
        ece += len(members) / n * abs(mean - accuracy)
        rows.append(ReliabilityBin(low, high, len(members), round(mean, 4), round(accuracy, 4)))
    return rows, round(ece, 4)
