"""Evidence retrieval: the embedded SQLite hybrid index (default), NCBI E-utilities (live PubMed,
no index) and OpenSearch (full-scale PubMed), behind one :class:`Retriever` interface, with a
small result cache in front."""

from __future__ import annotations

from proxy.retrieval.base import (
    DEFAULT_TOP_K,
    BackendError,
    Mode,
    RetrievalError,
    Retriever,
)
from proxy.retrieval.hybrid import HybridConfig, HybridRetriever

__all__ = [
    "DEFAULT_TOP_K",
    "BackendError",
    "HybridConfig",
    "HybridRetriever",
    "Mode",
    "RetrievalError",
    "Retriever",
]
