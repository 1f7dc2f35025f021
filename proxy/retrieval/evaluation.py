"""Ranking metrics as BEIR reports them (binary relevance, trec_eval's nDCG@k)."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence


def ndcg_at_k(ranked: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Normalised discounted cumulative gain of the first ``k`` results."""
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)
