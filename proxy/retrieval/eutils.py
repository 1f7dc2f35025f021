"""Live PubMed through NCBI E-utilities: esearch (Best Match ranking) then efetch (PubMed XML),
no local index needed.

NCBI's limits are honoured: 3 requests/s without an API key, 10/s with one, spaced across all
concurrent requests of this process. 429 and 5xx answers and transport errors are retried with
exponential backoff. Parameters go in a POST form body, never in the URL, so the API key cannot
end up in an access or client log.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

import httpx

from proxy.ingest import Article, to_evidence
from proxy.ingest.medline import parse_medline_stream
from proxy.retrieval.base import DEFAULT_TOP_K, BackendError
from proxy.retrieval.ratelimit import RequestSpacer
from proxy.retrieval.text import content_words
from verifiers import Evidence

EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
RATE_WITHOUT_KEY = 3.0
RATE_WITH_KEY = 10.0
DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=20.0, write=10.0, pool=5.0)
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class EutilsConfig:
    base_url: str = EUTILS_URL
    api_key: str | None = None
    email: str | None = None
    tool: str = "veriproxy"
    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry; doubles each time


def pubmed_query(text: str) -> str:
    """Content words OR-ed: PubMed ANDs plain words, which finds nothing for most questions;
    Best Match then ranks the abstracts that share the most (and rarest) words first."""
    return " OR ".join(content_words(text))


class EutilsRetriever:
    name = "eutils"

    def __init__(
        self,
        config: EutilsConfig = EutilsConfig(),
        *,
        client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._config = config
        self._client = client or httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)
        self._sleep = sleep
        rate = RATE_WITH_KEY if config.api_key else RATE_WITHOUT_KEY
        self._limiter = RequestSpacer(rate, sleep=sleep)

    async def search(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]:
        term = pubmed_query(query)
        if not term:
            return []
        found = await self._call(
            "esearch.fcgi",
            {"term": term, "retmax": str(top_k), "sort": "relevance", "retmode": "json"},
        )
        try:
            ids = [str(i) for i in found.json()["esearchresult"]["idlist"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise BackendError("E-utilities esearch returned an unexpected body") from exc
        if not ids:
            return []
        fetched = await self._call(
            "efetch.fcgi", {"id": ",".join(ids), "retmode": "xml", "rettype": "abstract"}
        )
        try:
            articles = {
                r.pmid: r
                for r in parse_medline_stream(io.BytesIO(fetched.content))
                if isinstance(r, Article)
            }
        except SyntaxError as exc:  # ElementTree's ParseError
            raise BackendError("E-utilities efetch returned malformed XML") from exc
        # esearch's order is PubMed's relevance ranking; the score keeps that order.
        return [
            to_evidence(articles[pmid], score=1.0 - rank / len(ids), retriever=self.name)
            for rank, pmid in enumerate(ids)
            if pmid in articles
        ]

    async def _call(self, endpoint: str, params: Mapping[str, str]) -> httpx.Response:
        form = {"db": "pubmed", "tool": self._config.tool, **params}
        if self._config.email:
            form["email"] = self._config.email
        if self._config.api_key:
            form["api_key"] = self._config.api_key
        url = f"{self._config.base_url}/{endpoint}"
        problem = ""
        for attempt in range(self._config.retries + 1):
            if attempt:
                await self._sleep(self._config.backoff * 2 ** (attempt - 1))
            await self._limiter.wait()
            try:
                response = await self._client.post(url, data=form)
            except httpx.TransportError as exc:
                problem = type(exc).__name__
                continue
            if response.status_code in _RETRY_STATUS:
                problem = f"HTTP {response.status_code}"
                continue
            if response.is_error:
                raise BackendError(f"E-utilities {endpoint} answered HTTP {response.status_code}")
            return response
        raise BackendError(f"E-utilities {endpoint} failed after retries ({problem})")

    async def aclose(self) -> None:
        await self._client.aclose()
