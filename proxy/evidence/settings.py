"""Settings of evidence retrieval and injection (the ``retrieval:`` config section)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from proxy.evidence.inject import DEFAULT_TOKEN_BUDGET
from proxy.evidence.query import DEFAULT_CONTEXT_TURNS
from proxy.retrieval.base import DEFAULT_TOP_K, Mode
from proxy.retrieval.cache import DEFAULT_MAX_ENTRIES, DEFAULT_TTL_SECONDS
from proxy.retrieval.fusion import DEFAULT_ALPHA, DEFAULT_BETA

DEFAULT_NCBI_KEY_ENV = "NCBI_API_KEY"
DEFAULT_TOOL = "veriproxy"
DEFAULT_OPENSEARCH_URL = "http://127.0.0.1:9200"
DEFAULT_OPENSEARCH_INDEX = "pubmed"
# Retrieval past this is abandoned and the answer goes on without evidence.
DEFAULT_TIMEOUT_SECONDS = 10.0


class Backend(StrEnum):
    SQLITE = "sqlite"  # embedded index file (default: the shipped PubMedQA demo corpus)
    EUTILS = "eutils"  # live PubMed through NCBI E-utilities, no index
    OPENSEARCH = "opensearch"  # full-scale PubMed in OpenSearch (BM25 + k-NN)


@dataclass(frozen=True, slots=True)
class EutilsSettings:
    email: str | None = None
    api_key_env: str | None = (
        DEFAULT_NCBI_KEY_ENV  # read at start; 10 requests/s with a key, else 3
    )
    tool: str = DEFAULT_TOOL


@dataclass(frozen=True, slots=True)
class OpenSearchSettings:
    url: str = DEFAULT_OPENSEARCH_URL
    index: str = DEFAULT_OPENSEARCH_INDEX


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
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    eutils: EutilsSettings = field(default_factory=EutilsSettings)
    opensearch: OpenSearchSettings = field(default_factory=OpenSearchSettings)


# --- the ``retrieval:`` section as read from YAML (validated once, at the config boundary) ---


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _EutilsModel(_Strict):
    email: str | None = None
    api_key_env: str | None = DEFAULT_NCBI_KEY_ENV
    tool: str = DEFAULT_TOOL


class _OpenSearchModel(_Strict):
    url: str = Field(default=DEFAULT_OPENSEARCH_URL, pattern=r"^https?://")
    index: str = Field(default=DEFAULT_OPENSEARCH_INDEX, min_length=1)


class RetrievalConfigModel(_Strict):
    enabled: bool = True
    backend: Backend = Backend.SQLITE
    path: str | None = Field(default=None, min_length=1)
    mode: Mode = Mode.HYBRID
    alpha: float = Field(default=DEFAULT_ALPHA, ge=0)
    beta: float = Field(default=DEFAULT_BETA, ge=0)
    top_k: int = Field(default=DEFAULT_TOP_K, ge=1, le=100)
    token_budget: int = Field(default=DEFAULT_TOKEN_BUDGET, ge=100)
    context_turns: int = Field(default=DEFAULT_CONTEXT_TURNS, ge=0, le=10)
    cache_entries: int = Field(default=DEFAULT_MAX_ENTRIES, ge=0)
    cache_ttl_seconds: float = Field(default=DEFAULT_TTL_SECONDS, gt=0)
    encoder_threads: int = Field(default=1, ge=1)
    timeout_seconds: float = Field(default=DEFAULT_TIMEOUT_SECONDS, gt=0)
    eutils: _EutilsModel = _EutilsModel()
    opensearch: _OpenSearchModel = _OpenSearchModel()

    def to_settings(self) -> RetrievalSettings:
        fields = self.model_dump(exclude={"eutils", "opensearch"})
        return RetrievalSettings(
            **fields,
            eutils=EutilsSettings(**self.eutils.model_dump()),
            opensearch=OpenSearchSettings(**self.opensearch.model_dump()),
        )
