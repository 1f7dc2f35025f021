from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from proxy.ingest import (
    Article,
    Deletion,
    IngestError,
    expand_paths,
    parse_file,
    parse_jsonl,
    parse_medline,
)
from proxy.ingest.jsonl import JSONLError

FIXTURES = Path(__file__).parents[2] / "fixtures"
MEDLINE = FIXTURES / "medline_excerpt.xml"


def _check_offsets(article: Article) -> None:
    assert article.sentences
    for start, end in article.sentences:
        text = article.abstract[start:end]
        assert text == text.strip() and text
    assert article.sentences == tuple(sorted(article.sentences))


def test_medline_excerpt_yields_articles_and_the_deletion() -> None:
    records = list(parse_medline(MEDLINE))
    articles = [r for r in records if isinstance(r, Article)]
    # 4 citations, one without an abstract (skipped), then one DeleteCitation.
    assert [a.pmid for a in articles] == ["17942999", "18621939", "19302341"]
    assert records[-1] == Deletion("26432306")
    first = articles[0]
    assert first.title.startswith("Neuroplasticity in the processing of pitch dimensions")
    assert first.journal == "Restorative neurology and neuroscience"
    assert first.year == 2007
    # Structured abstracts keep their section labels, in order.
    assert first.abstract.startswith("PURPOSE: An auditory electrophysiological study")
    labels = re.findall(r"\b(PURPOSE|METHODS|RESULTS|CONCLUSIONS):", first.abstract)
    assert labels == ["PURPOSE", "METHODS", "RESULTS", "CONCLUSIONS"]
    for article in articles:
        _check_offsets(article)


def test_year_falls_back_to_medline_date() -> None:
    by_pmid = {r.pmid: r for r in parse_medline(MEDLINE) if isinstance(r, Article)}
    assert by_pmid["18621939"].year == 2008  # <MedlineDate>2008 Jul-Aug</MedlineDate>


def test_gzipped_pubmed_article_set_as_baseline_files_are(tmp_path: Path) -> None:
    """The current format wraps each MedlineCitation in PubmedArticle; read it from .xml.gz."""
    raw = MEDLINE.read_text(encoding="utf-8")
    body = raw[raw.index("<MedlineCitation ") : raw.index("<DeleteCitation>")]
    citations = re.findall(r"<MedlineCitation .*?</MedlineCitation>", body, re.S)
    wrapped = "".join(
        f"<PubmedArticle>{c}<PubmedData><ArticleIdList/></PubmedData></PubmedArticle>"
        for c in citations
    )
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>'
        f'{wrapped}<DeleteCitation><PMID Version="1">17942999</PMID></DeleteCitation>'
        "</PubmedArticleSet>"
    )
    path = tmp_path / "pubmed25n0001.xml.gz"
    path.write_bytes(gzip.compress(xml.encode()))
    records = list(parse_file(path))
    assert [r.pmid for r in records] == ["17942999", "18621939", "19302341", "17942999"]
    assert isinstance(records[-1], Deletion)


def test_jsonl_accepts_sentence_lists_strings_and_deletions(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    lines = [
        {"doc_id": 7, "title": "T", "abstract": ["First sentence.", " Second one. "]},
        {"pmid": "8", "title": "U", "abstract": "Aspirin helps. It is cheap.", "year": "2001"},
        {"id": "9", "title": "no text"},
        {"pmid": "7", "delete": True},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    records = list(parse_jsonl(path))
    first, second, deletion = records
    assert isinstance(first, Article) and isinstance(second, Article)
    assert first.abstract == "First sentence. Second one."
    assert [first.abstract[s:e] for s, e in first.sentences] == [
        "First sentence.",
        "Second one.",
    ]
    assert second.year == 2001
    assert [second.abstract[s:e] for s, e in second.sentences] == ["Aspirin helps.", "It is cheap."]
    assert deletion == Deletion("7")


def test_jsonl_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"pmid": "1", "abstract": "ok."}\n{"title": "no id"}\n', encoding="utf-8")
    with pytest.raises(JSONLError, match=r"bad\.jsonl:2: no id field"):
        list(parse_jsonl(path))


def test_expand_paths_sorts_directory_files_and_rejects_unknown(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.xml.gz", "a.xml.gz", "sub/c.jsonl", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in expand_paths([tmp_path])] == ["a.xml.gz", "b.xml.gz", "c.jsonl"]
    with pytest.raises(IngestError, match="not PubMed XML"):
        expand_paths([tmp_path / "notes.txt"])
    with pytest.raises(IngestError, match="no such file"):
        expand_paths([tmp_path / "missing.xml"])
