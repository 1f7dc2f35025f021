"""OpenSearch backend for full-scale PubMed (about 25M abstracts), as VerifAI runs it: one index
with a BM25 text field pair and a ``knn_vector`` field, and hybrid search through a search
pipeline whose ``normalization-processor`` min-max normalises both scores and combines them with
the same ``alpha``/``beta`` weights as the embedded index.

:class:`OpenSearchSink` is the ingest side (``veriproxy index --backend opensearch``: the same
MEDLINE/JSONL readers, ``_bulk`` writes, finished files remembered in ``<index>-ingest``);
:class:`OpenSearchRetriever` the search side. Plain httpx against the documented REST API.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from proxy.ingest import Article, to_evidence
from proxy.retrieval.base import DEFAULT_TOP_K, BackendError, Mode
from proxy.retrieval.fusion import DEFAULT_ALPHA, DEFAULT_BETA, RRF_K
from proxy.retrieval.hybrid import DEFAULT_CANDIDATES
from proxy.retrieval.sqlite_store import embedding_text
from verifiers import Encoder, Evidence

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=30.0, write=30.0, pool=5.0)
VECTOR_FIELD = "embedding"


@dataclass(frozen=True, slots=True)
class OpenSearchConfig:
    url: str = "http://127.0.0.1:9200"
    index: str = "pubmed"
    mode: Mode = Mode.HYBRID
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    candidates: int = DEFAULT_CANDIDATES

    @property
    def pipeline(self) -> str:
        return f"{self.index}-{self.mode.value}"


def index_body(dim: int) -> dict[str, Any]:
    """Index settings and mapping: BM25 on title/abstract, HNSW k-NN on the embedding."""
    return {
        "settings": {"index": {"knn": True}},
        "mappings": {
            "properties": {
                "pmid": {"type": "keyword"},
                "title": {"type": "text"},
                "abstract": {"type": "text"},
                "sentences": {"type": "object", "enabled": False},
                "journal": {"type": "keyword"},
                "year": {"type": "integer"},
                VECTOR_FIELD: {
                    "type": "knn_vector",
                    "dimension": dim,
                    "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"},
                },
            }
        },
    }


def pipeline_body(config: OpenSearchConfig) -> dict[str, Any]:
    """The search pipeline that fuses the two sub-queries of a ``hybrid`` query: min-max and a
    weighted mean (``hybrid``), or reciprocal-rank fusion (``rrf``, OpenSearch 2.19+)."""
    if config.mode is Mode.RRF:
        return {
            "description": "veriproxy rrf: reciprocal-rank fusion of BM25 and k-NN",
            "phase_results_processors": [
                {
                    "score-ranker-processor": {
                        "combination": {"technique": "rrf", "rank_constant": RRF_K}
                    }
                }
            ],
        }
    return {
        "description": "veriproxy hybrid: min-max normalised BM25 and k-NN, weighted sum",
        "phase_results_processors": [
            {
                "normalization-processor": {
                    "normalization": {"technique": "min_max"},
                    "combination": {
                        "technique": "arithmetic_mean",
                        "parameters": {"weights": [config.alpha, config.beta]},
                    },
                }
            }
        ],
    }


def search_body(
    query: str, vector: Sequence[float] | None, config: OpenSearchConfig, k: int
) -> dict[str, Any]:
    lexical = {"multi_match": {"query": query, "fields": ["title", "abstract"]}}
    knn = {"knn": {VECTOR_FIELD: {"vector": list(vector or ()), "k": max(k, config.candidates)}}}
    if config.mode is Mode.BM25:
        clause: dict[str, Any] = lexical
    elif config.mode is Mode.DENSE:
        clause = knn
    else:
        clause = {"hybrid": {"queries": [lexical, knn]}}
    return {"size": k, "_source": {"excludes": [VECTOR_FIELD]}, "query": clause}


def _check(response: httpx.Response, what: str) -> Any:
    if response.is_error:
        raise BackendError(f"OpenSearch {what} answered HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as exc:
        raise BackendError(f"OpenSearch {what} returned a non-JSON body") from exc


def _article(source: Mapping[str, Any]) -> Article:
    return Article(
        pmid=str(source["pmid"]),
        title=str(source.get("title", "")),
        abstract=str(source.get("abstract", "")),
        sentences=tuple((int(s), int(e)) for s, e in source.get("sentences", ())),
        journal=str(source.get("journal", "")),
        year=source.get("year"),
    )


class OpenSearchSink:
    """Writes articles into the index (created on first use) with ``_bulk``."""

    def __init__(
        self, config: OpenSearchConfig, encoder: Encoder, client: httpx.Client | None = None
    ) -> None:
        self._config = config
        self._encoder = encoder
        self._client = client or httpx.Client(base_url=config.url, timeout=DEFAULT_TIMEOUT)
        self._ensure_index()

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return self._client.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise BackendError(f"OpenSearch unreachable ({type(exc).__name__})") from exc

    def _ensure_index(self) -> None:
        index = self._config.index
        if self._send("HEAD", f"/{index}").status_code == 404:
            _check(self._send("PUT", f"/{index}", json=index_body(self._encoder.dim)), "create")
        if self._send("HEAD", f"/{index}-ingest").status_code == 404:
            _check(self._send("PUT", f"/{index}-ingest"), "create ingest log")
        if self._config.mode not in (Mode.HYBRID, Mode.RRF):
            return
        _check(
            self._send(
                "PUT",
                f"/_search/pipeline/{self._config.pipeline}",
                json=pipeline_body(self._config),
            ),
            "create search pipeline",
        )

    def _bulk(self, lines: list[dict[str, Any]]) -> Mapping[str, Any]:
        body = "".join(json.dumps(line) + "\n" for line in lines)
        result = _check(
            self._send(
                "POST", "/_bulk", content=body, headers={"Content-Type": "application/x-ndjson"}
            ),
            "_bulk",
        )
        if result.get("errors"):
            failed: Mapping[str, Any] = next(
                (op for item in result["items"] for op in item.values() if "error" in op), {}
            )
            reason = failed.get("error", {}).get("reason", "unknown")
            raise BackendError(f"OpenSearch _bulk rejected a document: {reason}")
        return result  # type: ignore[no-any-return]

    def upsert(self, articles: Sequence[Article]) -> int:
        if not articles:
            return 0
        vectors = self._encoder.encode([embedding_text(a) for a in articles])
        lines: list[dict[str, Any]] = []
        for article, vector in zip(articles, vectors, strict=True):
            lines.append({"index": {"_index": self._config.index, "_id": article.pmid}})
            lines.append(
                {
                    "pmid": article.pmid,
                    "title": article.title,
                    "abstract": article.abstract,
                    "sentences": [list(s) for s in article.sentences],
                    "journal": article.journal,
                    "year": article.year,
                    VECTOR_FIELD: [round(float(x), 6) for x in vector],
                }
            )
        self._bulk(lines)
        return len(articles)

    def delete(self, pmids: Iterable[str]) -> int:
        lines = [{"delete": {"_index": self._config.index, "_id": p}} for p in pmids]
        if not lines:
            return 0
        result = self._send(
            "POST",
            "/_bulk",
            content="".join(json.dumps(line) + "\n" for line in lines),
            headers={"Content-Type": "application/x-ndjson"},
        )
        # A delete of a PMID we never held answers 404 inside a 200: not an error for us.
        items = _check(result, "_bulk delete").get("items", [])
        return sum(1 for item in items if item.get("delete", {}).get("result") == "deleted")

    def _ingest_id(self, key: str) -> str:
        return hashlib.sha1(key.encode()).hexdigest()

    def file_done(self, key: str) -> bool:
        response = self._send("GET", f"/{self._config.index}-ingest/_doc/{self._ingest_id(key)}")
        return response.status_code == 200 and bool(response.json().get("found"))

    def mark_file_done(self, key: str, records: int) -> None:
        _check(
            self._send(
                "PUT",
                f"/{self._config.index}-ingest/_doc/{self._ingest_id(key)}",
                json={"key": key, "records": records},
            ),
            "ingest log",
        )

    def close(self) -> None:
        self._client.close()


class OpenSearchRetriever:
    name = "opensearch"

    def __init__(
        self,
        config: OpenSearchConfig,
        encoder: Encoder,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self._config = config
        self._encoder = encoder
        self._client = client or httpx.AsyncClient(base_url=config.url, timeout=DEFAULT_TIMEOUT)

    async def search(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]:
        vector = None
        if self._config.mode is not Mode.BM25:
            vector = (await asyncio.to_thread(self._encoder.encode, [query]))[0].tolist()
        params = (
            {"search_pipeline": self._config.pipeline}
            if self._config.mode
            in (
                Mode.HYBRID,
                Mode.RRF,
            )
            else {}
        )
        try:
            response = await self._client.post(
                f"/{self._config.index}/_search",
                params=params,
                json=search_body(query, vector, self._config, top_k),
            )
        except httpx.TransportError as exc:
            raise BackendError(f"OpenSearch unreachable ({type(exc).__name__})") from exc
        hits = _check(response, "_search").get("hits", {}).get("hits", [])
        return [
            to_evidence(_article(h["_source"]), score=float(h["_score"]), retriever=self.name)
            for h in hits
        ]

    async def aclose(self) -> None:
        await self._client.aclose()
