"""Settings of evidence retrieval and injection (the ``retrieval:`` config section)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from proxy.evidence.inject import DEFAULT_TOKEN_BUDGET
from proxy.evidence.query import DEFAULT_CONTEXT_TURNS
from proxy.retrieval.base import DEFAULT_TOP_K, Mode
from proxy.retrieval.cache import DEFAULT_MAX_ENTRIES, DEFAULT_TTL_SECONDS
from proxy.retrieval.fusion import DEFAULT_ALPHA, DEFAULT_BETA


class Backend(StrEnum):
    SQLITE = "sqlite"  # embedded index file (default: the shipped PubMedQA demo corpus)
    EUTILS = "eutils"  # live PubMed through NCBI E-utilities, no index
    OPENSEARCH = "opensearch"  # full-scale PubMed in OpenSearch (BM25 + k-NN)


@dataclass(frozen=True, slots=True)
class EutilsSettings:
    email: str | None = None
    api_key_env: str | None = "NCBI_API_KEY"  # read at start; 10 requests/s with a key, else 3
    tool: str = "veriproxy"


@dataclass(frozen=True, slots=True)
class OpenSearchSettings:
    url: str = "http://127.0.0.1:9200"
    index: str = "pubmed"
    username: str | None = None
    password_env: str | None = None


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    """``enabled`` switches retrieval and injection; ``path`` is the SQLite index (None: the
    shipped demo corpus); ``alpha``/``beta`` weight lexical/semantic scores in hybrid mode."""

    enabled: bool = True
    backend: Backend = Backend.SQLITE
    path: str | None = None
    mode: Mode = Mode.HYBRID
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    top_k: int = DEFAULT_TOP_K
    token_budget: int = DEFAULT_TOKEN_BUDGET
    context_turns: int = DEFAULT_CONTEXT_TURNS
    cache_entries: int = DEFAULT_MAX_ENTRIES
    cache_ttl_seconds: float = DEFAULT_TTL_SECONDS
    encoder_threads: int = 1
    eutils: EutilsSettings = field(default_factory=EutilsSettings)
    opensearch: OpenSearchSettings = field(default_factory=OpenSearchSettings)
