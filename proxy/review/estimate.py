"""Precision and recall on live traffic, from reviewed items weighted back to all traffic.

Each item counts with weight ``1 / inclusion`` (Horvitz-Thompson weights; the ratio of weighted
sums is the Hájek estimator). The interval is Wilson's score interval at the Kish effective
sample size ``(Σw)² / Σw²``, which is the plain Wilson interval when all weights are equal.

An item's truth is its first label (reviewers' later labels measure agreement; they do not
overwrite the first). Precision of a verdict is the share of items the verifier gave that verdict
whose label confirms it; recall of a verdict is the share of items truly of that verdict to which
the verifier gave it. A verified response is correct when every one of its sentences is; only
responses that entered whole and are fully labelled count.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from proxy.review.items import Labelled, ReviewItem

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True, slots=True)
class Estimate:
    """A proportion with its 95% Wilson interval. ``n`` counts what was reviewed; ``n_eff`` is
    the effective sample size of the weighted estimate."""

    value: float
    lower: float
    upper: float
    n: int
    n_eff: float


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` observed on ``n`` (> 0) trials."""
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def reviews_needed(p: float, half_width: float, z: float = Z95) -> int:
    """How many equally weighted reviews put a precision near ``p`` within ``± half_width``
    (the Wilson interval's half-width; weighted samples need this many *effective* reviews)."""
    n = 1
    while True:
        lower, upper = wilson(p, n, z)
        if (upper - lower) / 2 <= half_width:
            return n
        n += 1


def proportion(hits: Iterable[tuple[bool, float]]) -> Estimate | None:
    """The weighted share of hits among ``(hit, weight)`` pairs; None when there are none."""
    pairs = list(hits)
    if not pairs:
        return None
    total = sum(w for _, w in pairs)
    p = sum(w for hit, w in pairs if hit) / total
    n_eff = total * total / sum(w * w for _, w in pairs)
    lower, upper = wilson(p, n_eff)
    return Estimate(p, lower, upper, len(pairs), n_eff)


@dataclass(frozen=True, slots=True)
class Judged:
    """An item reduced to what the estimates read: its verdict, the truth, its weight."""

    item: ReviewItem
    truth: str
    weight: float


def judged(found: Iterable[Labelled]) -> list[Judged]:
    return [Judged(x.item, x.labels[0].verdict, 1 / x.item.inclusion) for x in found]


def precision(rows: Sequence[Judged], verdict: str) -> Estimate | None:
    return proportion((r.truth == verdict, r.weight) for r in rows if r.item.verdict == verdict)


def recall(rows: Sequence[Judged], verdict: str) -> Estimate | None:
    return proportion((r.item.verdict == verdict, r.weight) for r in rows if r.truth == verdict)


def verified_responses(rows: Sequence[Judged]) -> Estimate | None:
    """Precision of ``verified``: the share of verified responses all of whose sentences the
    reviewers confirmed, over the responses that entered whole and are fully labelled."""
    by_response: dict[tuple[str, int], list[Judged]] = defaultdict(list)
    for r in rows:
        if r.item.response_status == "verified" and r.item.response_inclusion is not None:
            by_response[(r.item.request_id, r.item.choice)].append(r)
    complete = [
        group for group in by_response.values() if len(group) == group[0].item.response_sentences
    ]
    return proportion(
        (
            all(r.truth == r.item.verdict for r in group),
            1 / (group[0].item.response_inclusion or 1.0),
        )
        for group in complete
    )


@dataclass(frozen=True, slots=True)
class Agreement:
    """Between the first two reviewers of each item labelled twice: the share of items on
    whose right verdict they agree, and Cohen's kappa (agreement beyond chance)."""

    items: int
    agreed: int
    kappa: float | None  # None: too few items, or chance agreement is total


def agreement(found: Iterable[Labelled]) -> Agreement:
    pairs = [(x.labels[0].verdict, x.labels[1].verdict) for x in found if len(x.labels) >= 2]
    if not pairs:
        return Agreement(0, 0, None)
    n = len(pairs)
    agreed = sum(a == b for a, b in pairs)
    first: dict[str, int] = defaultdict(int)
    second: dict[str, int] = defaultdict(int)
    for a, b in pairs:
        first[a] += 1
        second[b] += 1
    chance = sum(first[v] * second[v] for v in first) / (n * n)
    kappa = None if chance >= 1 else (agreed / n - chance) / (1 - chance)
    return Agreement(n, agreed, kappa)


def confusion(rows: Iterable[Judged]) -> dict[tuple[str, str], tuple[int, float]]:
    """(verifier's verdict, true verdict) -> (items reviewed, estimated sentences in traffic)."""
    cells: dict[tuple[str, str], tuple[int, float]] = {}
    for r in rows:
        count, weight = cells.get((r.item.verdict, r.truth), (0, 0.0))
        cells[(r.item.verdict, r.truth)] = (count + 1, weight + r.weight)
    return cells


def grouped(
    rows: Iterable[Judged], key: Callable[[ReviewItem], str | None]
) -> dict[str, list[Judged]]:
    out: dict[str, list[Judged]] = defaultdict(list)
    for r in rows:
        out[key(r.item) or "-"].append(r)
    return dict(sorted(out.items()))
