"""Score fusion for hybrid retrieval (after VerifAI): min-max normalise each retriever's scores
over its own candidate list, then combine ``alpha·lexical + beta·semantic``; or reciprocal-rank
fusion (Cormack et al., 2009), which ignores scores and needs no weights tuned."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from proxy.settings.retrieval import DEFAULT_ALPHA as DEFAULT_ALPHA
from proxy.settings.retrieval import DEFAULT_BETA as DEFAULT_BETA

RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fused:
    doc_id: str
    score: float


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    """Scale to [0, 1] over the candidates; a list of equal scores maps to 1.0 each."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    span = hi - lo
    return {k: (v - lo) / span if span > 0 else 1.0 for k, v in scores.items()}


def weighted_fusion(
    lexical: Mapping[str, float],
    semantic: Mapping[str, float],
    *,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    top_k: int = 10,
) -> list[Fused]:
    """``alpha·minmax(lexical) + beta·minmax(semantic)``; a document missing from one list
    scores 0 there (below every candidate that list returned)."""
    lex, sem = minmax(lexical), minmax(semantic)
    combined = {d: alpha * lex.get(d, 0.0) + beta * sem.get(d, 0.0) for d in lex.keys() | sem}
    return _top(combined, top_k)


def rrf_fusion(*rankings: list[str], k: int = RRF_K, top_k: int = 10) -> list[Fused]:
    """Reciprocal-rank fusion: ``Σ 1 / (k + rank)`` over the ranked lists (rank from 1)."""
    combined: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, 1):
            combined[doc] = combined.get(doc, 0.0) + 1.0 / (k + rank)
    return _top(combined, top_k)


def _top(scores: Mapping[str, float], top_k: int) -> list[Fused]:
    # Ties break on the id so that results are reproducible.
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Fused(doc, score) for doc, score in ranked[:top_k]]
