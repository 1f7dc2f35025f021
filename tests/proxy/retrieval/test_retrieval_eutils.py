from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest
import respx

from proxy.retrieval import BackendError
from proxy.retrieval.eutils import EUTILS_URL, EutilsConfig, EutilsRetriever, pubmed_query
from proxy.retrieval.ratelimit import RequestSpacer

MEDLINE = Path(__file__).parents[2] / "fixtures" / "medline_excerpt.xml"
ESEARCH = f"{EUTILS_URL}/esearch.fcgi"
EFETCH = f"{EUTILS_URL}/efetch.fcgi"


def efetch_body() -> bytes:
    """The real MEDLINE excerpt in efetch's PubmedArticleSet shape."""
    raw = MEDLINE.read_text(encoding="utf-8")
    citations = re.findall(r"<MedlineCitation .*?</MedlineCitation>", raw, re.S)
    articles = "".join(f"<PubmedArticle>{c}</PubmedArticle>" for c in citations)
    return (
        '<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
        '1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">\n'
        f"<PubmedArticleSet>{articles}</PubmedArticleSet>"
    ).encode()


def esearch_json(ids: list[str]) -> dict[str, object]:
    return {
        "header": {"type": "esearch", "version": "0.3"},
        "esearchresult": {
            "count": str(len(ids)),
            "retmax": str(len(ids)),
            "retstart": "0",
            "idlist": ids,
            "translationset": [],
            "querytranslation": "",
        },
    }


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


def test_pubmed_query_ors_content_words() -> None:
    assert pubmed_query("Does aspirin reduce the risk of stroke?") == (
        "aspirin OR reduce OR risk OR stroke"
    )


@respx.mock
async def test_search_ranks_in_esearch_order_and_posts_the_key() -> None:
    search = respx.post(ESEARCH).respond(json=esearch_json(["19302341", "26407462", "17942999"]))
    fetch = respx.post(EFETCH).respond(content=efetch_body(), headers={"Content-Type": "text/xml"})
    retriever = EutilsRetriever(
        EutilsConfig(api_key="secret-ncbi-key", email="dev@example.org"), sleep=Sleeps()
    )
    hits = await retriever.search("Do women sleep better than men?", top_k=3)
    await retriever.aclose()
    # 26407462 has no abstract: it is not evidence.
    assert [h.pmid for h in hits] == ["19302341", "17942999"]
    assert hits[0].score > hits[1].score
    assert hits[0].retriever == "eutils"
    assert hits[0].title.startswith("Women sleep objectively better than men")
    sent = form(search.calls.last.request)
    assert sent["db"] == "pubmed" and sent["retmode"] == "json" and sent["retmax"] == "3"
    assert sent["api_key"] == "secret-ncbi-key" and sent["email"] == "dev@example.org"
    assert "secret-ncbi-key" not in str(search.calls.last.request.url)
    assert form(fetch.calls.last.request)["id"] == "19302341,26407462,17942999"


@respx.mock
async def test_retries_429_and_5xx_with_backoff() -> None:
    respx.post(ESEARCH).mock(
        side_effect=[
            httpx.Response(429, json={"error": "API rate limit exceeded"}),
            httpx.Response(503),
            httpx.Response(200, json=esearch_json([])),
        ]
    )
    sleeps = Sleeps()
    retriever = EutilsRetriever(EutilsConfig(backoff=0.5), sleep=sleeps)
    assert await retriever.search("aspirin stroke") == []
    # Each retry: a backoff (0.5 s, then 1 s), then a wait for the next NCBI rate slot.
    assert sleeps.calls[0::2] == [0.5, 1.0]
    assert all(0 < s <= 1 / 3 * 2 for s in sleeps.calls[1::2])


@respx.mock
async def test_gives_up_after_retries_with_a_clean_error() -> None:
    respx.post(ESEARCH).mock(side_effect=httpx.ConnectError("refused"))
    retriever = EutilsRetriever(EutilsConfig(retries=2, api_key="k-123"), sleep=Sleeps())
    with pytest.raises(BackendError, match="failed after retries") as info:
        await retriever.search("aspirin")
    assert "k-123" not in str(info.value)


@respx.mock
async def test_client_error_is_not_retried() -> None:
    route = respx.post(ESEARCH).respond(400)
    retriever = EutilsRetriever(sleep=Sleeps())
    with pytest.raises(BackendError, match="HTTP 400"):
        await retriever.search("aspirin")
    assert route.call_count == 1


async def test_rate_limiter_spaces_requests() -> None:
    now = [100.0]
    sleeps = Sleeps()
    limiter = RequestSpacer(3.0, clock=lambda: now[0], sleep=sleeps)
    for _ in range(4):
        await limiter.wait()
    assert sleeps.calls == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_key_sets_ncbi_rate() -> None:
    assert EutilsRetriever(EutilsConfig(api_key="x"))._limiter._interval == pytest.approx(0.1)
    assert EutilsRetriever()._limiter._interval == pytest.approx(1 / 3)
