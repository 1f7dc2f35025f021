from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx

from proxy.ingest import Article
from proxy.retrieval import BackendError, Mode
from proxy.retrieval.indexing import index_paths
from proxy.retrieval.opensearch import (
    OpenSearchConfig,
    OpenSearchRetriever,
    OpenSearchSink,
)
from verifiers import Encoder

URL = "http://opensearch.test:9200"
MEDLINE = Path(__file__).parents[2] / "fixtures" / "medline_excerpt.xml"


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(threads=1)


def bulk_ok(request: httpx.Request) -> httpx.Response:
    lines = [json.loads(x) for x in request.content.decode().splitlines()]
    actions = [x for x in lines if set(x) & {"index", "delete"}]
    items = [
        {op: {"_index": "pubmed", "_id": a[op]["_id"], "result": "deleted", "status": 200}}
        for a in actions
        for op in a
    ]
    return httpx.Response(200, json={"took": 3, "errors": False, "items": items})


@respx.mock
def test_index_creates_mapping_and_pipeline_then_bulk_loads(encoder: Encoder) -> None:
    respx.head(f"{URL}/pubmed").respond(404)
    respx.head(f"{URL}/pubmed-ingest").respond(404)
    create = respx.put(f"{URL}/pubmed").respond(
        json={"acknowledged": True, "shards_acknowledged": True, "index": "pubmed"}
    )
    respx.put(f"{URL}/pubmed-ingest").respond(json={"acknowledged": True})
    pipeline = respx.put(f"{URL}/_search/pipeline/pubmed-hybrid").respond(
        json={"acknowledged": True}
    )
    bulk = respx.post(f"{URL}/_bulk").mock(side_effect=bulk_ok)
    respx.get(url__startswith=f"{URL}/pubmed-ingest/_doc/").respond(
        404, json={"_index": "pubmed-ingest", "found": False}
    )
    done = respx.put(url__startswith=f"{URL}/pubmed-ingest/_doc/").respond(
        201, json={"result": "created"}
    )
    sink = OpenSearchSink(OpenSearchConfig(url=URL), encoder)
    stats = index_paths([MEDLINE], sink)
    sink.close()

    mapping = json.loads(create.calls.last.request.content)
    assert mapping["settings"]["index"]["knn"] is True
    vector = mapping["mappings"]["properties"]["embedding"]
    assert vector["type"] == "knn_vector" and vector["dimension"] == 384
    processor = json.loads(pipeline.calls.last.request.content)["phase_results_processors"][0]
    norm = processor["normalization-processor"]
    assert norm["normalization"]["technique"] == "min_max"
    assert norm["combination"]["parameters"]["weights"] == [0.7, 0.3]

    upsert, delete = (c.request for c in bulk.calls)
    assert upsert.headers["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(x) for x in upsert.content.decode().splitlines()]
    assert [x["index"]["_id"] for x in lines[0::2]] == ["17942999", "18621939", "19302341"]
    doc = lines[1]
    assert doc["pmid"] == "17942999" and len(doc["embedding"]) == 384
    start, end = doc["sentences"][0]
    assert doc["abstract"][start:end].startswith("PURPOSE: An auditory")
    assert json.loads(delete.content.decode().splitlines()[0]) == {
        "delete": {"_index": "pubmed", "_id": "26432306"}
    }
    assert (stats.written, stats.deleted) == (3, 1)
    assert json.loads(done.calls.last.request.content)["records"] == 4


@respx.mock
def test_bulk_errors_surface(encoder: Encoder) -> None:
    respx.head(url__startswith=URL).respond(200)
    respx.put(f"{URL}/_search/pipeline/pubmed-hybrid").respond(json={"acknowledged": True})
    respx.post(f"{URL}/_bulk").respond(
        json={
            "took": 1,
            "errors": True,
            "items": [
                {
                    "index": {
                        "_id": "1",
                        "status": 400,
                        "error": {"type": "mapper_parsing_exception", "reason": "bad vector"},
                    }
                }
            ],
        }
    )
    sink = OpenSearchSink(OpenSearchConfig(url=URL), encoder)
    with pytest.raises(BackendError, match="bad vector"):
        sink.upsert([Article("1", "t", "Some abstract.", ((0, 14),))])


def test_unreachable_cluster_is_a_backend_error(encoder: Encoder) -> None:
    with respx.mock:
        respx.head(url__startswith=URL).mock(side_effect=httpx.ConnectError("refused"))
        with pytest.raises(BackendError, match="unreachable"):
            OpenSearchSink(OpenSearchConfig(url=URL), encoder)


@respx.mock
@pytest.mark.parametrize("mode", [Mode.HYBRID, Mode.BM25])
async def test_search_sends_hybrid_query_and_reads_hits(encoder: Encoder, mode: Mode) -> None:
    hit_source = {
        "pmid": "19302341",
        "title": "Women sleep objectively better than men.",
        "abstract": "Women slept better. Men did not.",
        "sentences": [[0, 19], [20, 32]],
        "journal": "Journal of sleep research",
        "year": 2009,
    }
    route = respx.post(f"{URL}/pubmed/_search").respond(
        json={
            "took": 12,
            "timed_out": False,
            "hits": {
                "total": {"value": 1, "relation": "eq"},
                "max_score": 0.7,
                "hits": [
                    {"_index": "pubmed", "_id": "19302341", "_score": 0.7, "_source": hit_source}
                ],
            },
        }
    )
    retriever = OpenSearchRetriever(OpenSearchConfig(url=URL, mode=mode), encoder)
    hits = await retriever.search("gender differences in sleep", top_k=5)
    await retriever.aclose()
    request = route.calls.last.request
    body = json.loads(request.content)
    assert body["size"] == 5 and body["_source"] == {"excludes": ["embedding"]}
    if mode is Mode.HYBRID:
        lexical, knn = body["query"]["hybrid"]["queries"]
        assert lexical["multi_match"]["fields"] == ["title", "abstract"]
        assert len(knn["knn"]["embedding"]["vector"]) == 384
        assert request.url.params["search_pipeline"] == "pubmed-hybrid"
    else:
        assert "multi_match" in body["query"] and "search_pipeline" not in request.url.params
    (hit,) = hits
    assert (hit.pmid, hit.score, hit.retriever, hit.year) == ("19302341", 0.7, "opensearch", 2009)
    assert [s.text for s in hit.sentences] == ["Women slept better.", "Men did not."]
