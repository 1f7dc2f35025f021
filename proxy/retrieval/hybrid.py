"""Hybrid retrieval over any store that offers lexical and semantic candidate scores."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from proxy.ingest import Article, to_evidence
from proxy.retrieval.base import DEFAULT_TOP_K, Mode, RetrievalError
from proxy.retrieval.fusion import DEFAULT_ALPHA, DEFAULT_BETA, rrf_fusion, weighted_fusion
from verifiers import Evidence

DEFAULT_CANDIDATES = 100


class CandidateStore(Protocol):
    def lexical(self, query: str, n: int) -> dict[str, float]: ...

    def semantic(self, query: str, n: int) -> dict[str, float]: ...

    def articles(self, pmids: Sequence[str]) -> dict[str, Article]: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class HybridConfig:
    mode: Mode = Mode.HYBRID
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    candidates: int = DEFAULT_CANDIDATES  # per retriever, before fusion


def rank(
    store: CandidateStore,
    query: str,
    config: HybridConfig,
    top_k: int,
    pool: Executor | None = None,
) -> list[tuple[str, float]]:
    """(pmid, score) best first, fused as ``config.mode`` says. With a ``pool``, the BM25 query
    runs beside the query encoding (both release the GIL), so hybrid costs about the slower of
    the two rather than their sum."""
    n = max(config.candidates, top_k)
    if config.mode is Mode.BM25:
        return _best(store.lexical(query, n), top_k)
    if config.mode is Mode.DENSE:
        return _best(store.semantic(query, n), top_k)
    if pool is None:
        lexical, semantic = store.lexical(query, n), store.semantic(query, n)
    else:
        pending = pool.submit(store.lexical, query, n)
        semantic = store.semantic(query, n)
        lexical = pending.result()
    if config.mode is Mode.RRF:
        fused = rrf_fusion(
            [d for d, _ in _best(lexical, n)], [d for d, _ in _best(semantic, n)], top_k=top_k
        )
    else:
        fused = weighted_fusion(
            lexical, semantic, alpha=config.alpha, beta=config.beta, top_k=top_k
        )
    return [(f.doc_id, f.score) for f in fused]


def _best(scores: dict[str, float], k: int) -> list[tuple[str, float]]:
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


class HybridRetriever:
    """A :class:`~proxy.retrieval.base.Retriever` over a local store (the SQLite index)."""

    name = "sqlite"

    def __init__(self, store: CandidateStore, config: HybridConfig = HybridConfig()) -> None:
        self._store = store
        self.config = config
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="veriproxy-bm25")

    def search_sync(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]:
        ranked = rank(self._store, query, self.config, top_k, self._pool)
        found = self._store.articles([pmid for pmid, _ in ranked])
        return [
            to_evidence(found[pmid], score=score, retriever=self.config.mode.value)
            for pmid, score in ranked
            if pmid in found
        ]

    async def search(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]:
        # SQLite and ONNX Runtime release the GIL: a worker thread keeps the event loop free.
        try:
            return await asyncio.to_thread(self.search_sync, query, top_k=top_k)
        except (sqlite3.Error, OSError) as exc:
            # A broken or vanished index is a backend failure: the answer goes on without it.
            raise RetrievalError(f"the local index failed ({type(exc).__name__})") from exc

    async def aclose(self) -> None:
        self._pool.shutdown(wait=True)
        self._store.close()
