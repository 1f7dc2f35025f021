from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from proxy.ingest import Article
from proxy.retrieval import HybridConfig, HybridRetriever, Mode, RetrievalError
from proxy.retrieval.cache import CachedRetriever
from proxy.retrieval.evaluation import ndcg_at_k, recall_at_k
from proxy.retrieval.fusion import minmax, rrf_fusion, weighted_fusion
from proxy.retrieval.indexing import index_paths
from proxy.retrieval.sqlite_store import SqliteIndex, fts_query
from proxy.state.cache import MemoryCache
from proxy.state.evidence_cache import EvidenceCache
from verifiers import Encoder

FIXTURES = Path(__file__).parents[2] / "fixtures"
SCIFACT = FIXTURES / "scifact_excerpt.jsonl"
MEDLINE = FIXTURES / "medline_excerpt.xml"


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(threads=1)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, encoder: Encoder) -> SqliteIndex:
    store = SqliteIndex(tmp_path_factory.mktemp("idx") / "index.sqlite", encoder)
    index_paths([SCIFACT, MEDLINE], store)
    return store


def test_minmax_and_weighted_fusion() -> None:
    assert minmax({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert minmax({"a": 5.0}) == {"a": 1.0}
    fused = weighted_fusion({"a": 10.0, "b": 0.0}, {"b": 0.9, "c": 0.1}, alpha=0.7, beta=0.3)
    assert [(f.doc_id, round(f.score, 3)) for f in fused] == [("a", 0.7), ("b", 0.3), ("c", 0.0)]
    # The weights decide: semantic-heavy fusion flips the order.
    flipped = weighted_fusion({"a": 10.0, "b": 0.0}, {"b": 0.9, "a": 0.1}, alpha=0.2, beta=0.8)
    assert flipped[0].doc_id == "b"


def test_rrf_rewards_agreement() -> None:
    fused = rrf_fusion(["a", "b", "c"], ["b", "c", "a"], k=60)
    assert [f.doc_id for f in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_metrics() -> None:
    assert ndcg_at_k(["x", "a"], {"a"}) == pytest.approx(1 / 1.5849625)
    assert ndcg_at_k(["a", "b"], {"a", "b"}) == 1.0
    assert recall_at_k(["a", "x"], {"a", "b"}) == 0.5


def test_fts_query_quotes_user_syntax() -> None:
    assert fts_query('What is "NEAR" the-cat* AND dog?') == '"near" OR "cat" OR "dog"'
    assert fts_query('aspirin NEAR(") -dose') == '"aspirin" OR "near" OR "dose"'
    assert fts_query("the of and") == ""


@pytest.mark.parametrize("mode", list(Mode))
def test_claims_retrieve_their_cited_abstract_first(index: SqliteIndex, mode: Mode) -> None:
    retriever = HybridRetriever(index, HybridConfig(mode=mode))
    hits = retriever.search_sync(
        "A breast cancer patient's capacity to metabolize tamoxifen influences treatment outcome.",
        top_k=3,
    )
    assert hits[0].pmid == "24341590"
    assert hits[0].retriever == mode.value
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    top = hits[0]
    assert top.sentences and all(top.abstract[s.start : s.end] == s.text for s in top.sentences)


def test_dense_finds_a_paraphrase_that_shares_no_rare_word(index: SqliteIndex) -> None:
    # "women sleep better than men" in other words: no title word in common.
    query = "female subjects rest more soundly at night than males do"
    dense = HybridRetriever(index, HybridConfig(mode=Mode.DENSE)).search_sync(query, top_k=1)
    hybrid = HybridRetriever(index).search_sync(query, top_k=1)
    assert dense[0].pmid == hybrid[0].pmid == "19302341"


def test_reindex_is_idempotent_and_updates_delete(tmp_path: Path, encoder: Encoder) -> None:
    store = SqliteIndex(tmp_path / "i.sqlite", encoder)
    first = index_paths([MEDLINE], store)
    assert (first.files, first.written, store.count()) == (1, 3, 3)
    again = index_paths([MEDLINE], store)
    assert (again.files, again.skipped_files, again.written) == (0, 1, 0)
    # An update file: a revised abstract, then a DeleteCitation.
    update = tmp_path / "update.jsonl.gz"
    lines = [
        {"pmid": "19302341", "title": "Revised", "abstract": "A revised abstract."},
        {"pmid": "17942999", "delete": True},
    ]
    update.write_bytes(gzip.compress("\n".join(json.dumps(x) for x in lines).encode()))
    stats = index_paths([update], store)
    assert (stats.written, stats.deleted, store.count()) == (1, 1, 2)
    assert store.articles(["19302341"])["19302341"].title == "Revised"
    assert "17942999" not in store.lexical("pitch dimensions mismatch negativity", 10)
    assert "17942999" not in store.semantic("pitch processing in tone languages", 10)


def test_interrupted_file_resumes_without_reembedding(tmp_path: Path, encoder: Encoder) -> None:
    store = SqliteIndex(tmp_path / "i.sqlite", encoder)
    # As if a run died after the first batch: the rows are there, the file is not marked done.
    articles = [
        Article("1", "Aspirin", "Aspirin reduces fever.", ((0, 22),)),
        Article("2", "Statins", "Statins lower LDL cholesterol.", ((0, 30),)),
    ]
    assert store.upsert(articles[:1]) == 1
    assert store.upsert(articles) == 1  # only the new one is embedded
    assert store.upsert(articles) == 0


def test_readonly_open_of_a_missing_index_is_a_clear_error(
    tmp_path: Path, encoder: Encoder
) -> None:
    with pytest.raises(RetrievalError, match="veriproxy index"):
        SqliteIndex(tmp_path / "none.sqlite", encoder, readonly=True)


async def test_cached_retriever_serves_repeats_from_cache(index: SqliteIndex) -> None:
    cache = MemoryCache("retrieval", max_entries=1)
    retriever = CachedRetriever(HybridRetriever(index), EvidenceCache(cache))
    first = await retriever.search("tamoxifen metabolism", top_k=2)
    assert len(cache) == 1
    again = await retriever.search("  Tamoxifen   METABOLISM ", top_k=2)
    assert again == first
    await retriever.search("methadone liver transplantation", top_k=2)
    assert len(cache) == 1  # LRU bound


async def test_memory_cache_expires() -> None:
    now = [0.0]
    cache = EvidenceCache(MemoryCache("retrieval", timer=lambda: now[0]), ttl=10.0)
    await cache.set("k", [])
    assert await cache.get("k") == []
    now[0] = 11.0
    assert await cache.get("k") is None
