"""Retrieval quality as BEIR reports it: nDCG@10 and Recall@10 (binary relevance, trec_eval's
nDCG@k) of BM25, dense, hybrid and RRF rankings, on SciFact (``veriproxy eval retrieval``).

The claims of a split are the queries, the cited documents are relevant. One search per
retriever and query (:func:`search`) gives the runs; every fusion is then scored on the same
runs (:func:`compare`, :func:`sweep`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING

from proxy.retrieval.fusion import rrf_fusion, weighted_fusion

if TYPE_CHECKING:
    from proxy.retrieval.sqlite_store import SqliteIndex

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "veriproxy"
K = 10

Scores = dict[str, float]  # doc id -> score, one retriever's hits for one query
Run = tuple[Scores, Scores]  # (lexical, semantic)
Fuse = Callable[[Scores, Scores], list[str]]


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    relevant: frozenset[str]


def load_scifact(data_dir: Path, split: str) -> list[Query]:
    path = data_dir / "scifact" / f"claims_{split}.jsonl"
    with path.open(encoding="utf-8") as fh:
        claims = [json.loads(line) for line in fh if line.strip()]
    return [
        Query(c["claim"], frozenset(str(d) for d in c["cited_doc_ids"]))
        for c in claims
        if c["cited_doc_ids"]
    ]


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


def search(store: SqliteIndex, queries: Iterable[Query], candidates: int) -> list[Run]:
    """Each query's lexical and semantic hits (``candidates`` each), to fuse afterwards."""
    return [
        (store.lexical(q.text, candidates), store.semantic(q.text, candidates)) for q in queries
    ]


def score(runs: Sequence[Run], queries: Sequence[Query], fuse: Fuse) -> tuple[float, float]:
    """Mean nDCG@K and Recall@K of the rankings ``fuse`` makes of the runs."""
    ranked = [fuse(lex, sem) for lex, sem in runs]
    return (
        mean(ndcg_at_k(r, q.relevant, K) for r, q in zip(ranked, queries, strict=True)),
        mean(recall_at_k(r, q.relevant, K) for r, q in zip(ranked, queries, strict=True)),
    )


def hybrid(alpha: float) -> Fuse:
    return lambda lex, sem: [
        f.doc_id for f in weighted_fusion(lex, sem, alpha=alpha, beta=1 - alpha, top_k=K)
    ]


def compare(
    runs: Sequence[Run], queries: Sequence[Query], alpha: float
) -> dict[str, tuple[float, float]]:
    """(nDCG@K, Recall@K) of each retriever: BM25, dense, the hybrid at ``alpha``, RRF."""
    return {
        "BM25 (FTS5)": score(runs, queries, lambda lex, sem: _ranked(lex)),
        "dense (MiniLM int8)": score(runs, queries, lambda lex, sem: _ranked(sem)),
        f"hybrid alpha={alpha:.2f}/beta={1 - alpha:.2f}": score(runs, queries, hybrid(alpha)),
        "RRF (k=60)": score(
            runs,
            queries,
            lambda lex, sem: [f.doc_id for f in rrf_fusion(_ranked(lex), _ranked(sem), top_k=K)],
        ),
    }


def sweep(runs: Sequence[Run], queries: Sequence[Query]) -> dict[float, tuple[float, float]]:
    """(nDCG@K, Recall@K) of the hybrid for lexical weights 0.0, 0.1, … 1.0."""
    return {step / 10: score(runs, queries, hybrid(step / 10)) for step in range(11)}


def _ranked(scores: Scores) -> list[str]:
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
