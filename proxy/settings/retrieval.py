"""``retrieval:``, evidence retrieval and injection (used by :mod:`proxy.evidence` and
:mod:`proxy.retrieval`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated

from annotated_types import Ge, Gt, Le, MinLen

from proxy.settings._section import Pattern, Section

DEFAULT_TOP_K = 10
DEFAULT_ALPHA = 0.7  # lexical (BM25)
DEFAULT_BETA = 0.3  # semantic (dense)
DEFAULT_TOKEN_BUDGET = 3000  # evidence tokens injected into the prompt
DEFAULT_CONTEXT_TURNS = 0  # earlier user turns that join the query
DEFAULT_CACHE_ENTRIES = 2048  # results kept in this process
DEFAULT_CACHE_TTL_SECONDS = 3600.0
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


class Mode(StrEnum):
    """How lexical and semantic results are combined."""

    HYBRID = "hybrid"  # alpha·minmax(BM25) + beta·minmax(dense)
    RRF = "rrf"  # reciprocal-rank fusion
    BM25 = "bm25"
    DENSE = "dense"


class QuoteRequest(StrEnum):
    """Whether the citation contract asks the model to quote the words it cites."""

    ASK = "ask"  # cite as [PMID:123 "exact words from the abstract"]
    OFF = "off"  # cite as [PMID:123]


class QuoteDisplay(StrEnum):
    """What the client reads of a quoted citation."""

    STRIP = "strip"  # [PMID:123]: the quote travels in the annotations
    KEEP = "keep"  # the citation as the model wrote it, quote and all


@dataclass(frozen=True, slots=True)
class CitationSettings(Section):
    """``retrieval.citations``: quoted citations (docs/retrieval.md)."""

    quotes: QuoteRequest = QuoteRequest.ASK
    quotes_in_text: QuoteDisplay = QuoteDisplay.STRIP


@dataclass(frozen=True, slots=True)
class EutilsSettings(Section):
    email: str | None = None
    # Read at start; 10 requests/s with a key, else 3.
    api_key_env: str | None = DEFAULT_NCBI_KEY_ENV
    tool: str = DEFAULT_TOOL


@dataclass(frozen=True, slots=True)
class OpenSearchSettings(Section):
    url: Annotated[str, Pattern(r"^https?://")] = DEFAULT_OPENSEARCH_URL
    index: Annotated[str, MinLen(1)] = DEFAULT_OPENSEARCH_INDEX


@dataclass(frozen=True, slots=True)
class RetrievalSettings(Section):
    """``enabled`` switches retrieval and injection; ``path`` is the SQLite index (None: the
    shipped demo corpus); ``alpha``/``beta`` weight lexical/semantic scores in hybrid mode;
    ``cache_entries`` results are kept in this process (with ``redis:``, while Redis is away)."""

    enabled: bool = True
    backend: Backend = Backend.SQLITE
    path: Annotated[str, MinLen(1)] | None = None
    mode: Mode = Mode.HYBRID
    alpha: Annotated[float, Ge(0)] = DEFAULT_ALPHA
    beta: Annotated[float, Ge(0)] = DEFAULT_BETA
    top_k: Annotated[int, Ge(1), Le(100)] = DEFAULT_TOP_K
    token_budget: Annotated[int, Ge(100)] = DEFAULT_TOKEN_BUDGET
    context_turns: Annotated[int, Ge(0), Le(10)] = DEFAULT_CONTEXT_TURNS
    cache_entries: Annotated[int, Ge(0)] = DEFAULT_CACHE_ENTRIES
    cache_ttl_seconds: Annotated[float, Gt(0)] = DEFAULT_CACHE_TTL_SECONDS
    encoder_threads: Annotated[int, Ge(1)] = 1
    timeout_seconds: Annotated[float, Gt(0)] = DEFAULT_TIMEOUT_SECONDS
    eutils: EutilsSettings = field(default_factory=EutilsSettings)
    opensearch: OpenSearchSettings = field(default_factory=OpenSearchSettings)
    citations: CitationSettings = field(default_factory=CitationSettings)
