"""Build the configured retriever and the evidence preparer from ``RetrievalSettings``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from proxy.data import DEMO_INDEX
from proxy.evidence.preparer import EvidencePreparer
from proxy.retrieval.base import Retriever
from proxy.retrieval.cache import CachedRetriever, ResultCache
from proxy.retrieval.eutils import EutilsConfig, EutilsRetriever
from proxy.retrieval.hybrid import HybridConfig, HybridRetriever
from proxy.retrieval.opensearch import OpenSearchConfig, OpenSearchRetriever
from proxy.retrieval.sqlite_store import SqliteIndex
from proxy.settings.retrieval import Backend, RetrievalSettings
from proxy.state.cache import MemoryCache
from proxy.state.evidence_cache import EvidenceCache
from verifiers.embed import shared_encoder


def build_retriever(
    settings: RetrievalSettings,
    environ: Mapping[str, str] = os.environ,
    cache: ResultCache | None = None,
) -> Retriever:
    """The configured backend behind a result cache (in memory unless one is given, e.g. the
    shared Redis-backed cache of a scaled-out deployment)."""
    inner: Retriever
    if settings.backend is Backend.EUTILS:
        key_env = settings.eutils.api_key_env
        inner = EutilsRetriever(
            EutilsConfig(
                api_key=environ.get(key_env) if key_env else None,
                email=settings.eutils.email,
                tool=settings.eutils.tool,
            )
        )
    elif settings.backend is Backend.OPENSEARCH:
        inner = OpenSearchRetriever(
            OpenSearchConfig(
                url=settings.opensearch.url,
                index=settings.opensearch.index,
                mode=settings.mode,
                alpha=settings.alpha,
                beta=settings.beta,
            ),
            shared_encoder(settings.encoder_threads),
        )
    else:
        path = Path(settings.path) if settings.path else DEMO_INDEX
        store = SqliteIndex(path, shared_encoder(settings.encoder_threads), readonly=True)
        inner = HybridRetriever(
            store, HybridConfig(mode=settings.mode, alpha=settings.alpha, beta=settings.beta)
        )
    if cache is None:
        cache = EvidenceCache(
            MemoryCache("retrieval", settings.cache_entries), settings.cache_ttl_seconds
        )
    return CachedRetriever(inner, cache)


def build_preparer(
    settings: RetrievalSettings,
    environ: Mapping[str, str] = os.environ,
    cache: ResultCache | None = None,
) -> EvidencePreparer:
    """The preparer; with retrieval disabled it still serves client documents per request."""
    retriever = build_retriever(settings, environ, cache) if settings.enabled else None
    return EvidencePreparer(retriever, settings)
