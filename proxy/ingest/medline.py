"""PubMed/MEDLINE XML, as NLM publishes it, read as a stream in constant memory.

Handles the annual baseline and daily update files (``PubmedArticleSet`` with ``PubmedArticle``
and ``DeleteCitation``; also the older ``MedlineCitationSet``), plain or ``.xml.gz``. Each
top-level element is parsed at its end tag and then cleared from the tree, so memory stays flat
for files of any size. Citations without an abstract are skipped: a bare title is weak evidence.
"""

from __future__ import annotations

import gzip
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

from proxy.ingest._article import Article, Deletion, Record, sentence_spans

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def parse_medline(path: Path | str) -> Iterator[Record]:
    """Yield articles and deletions from a MEDLINE XML file in document order."""
    path = Path(path)
    with _open(path) as fh:
        yield from parse_medline_stream(fh)


def _open(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def parse_medline_stream(fh: IO[bytes]) -> Iterator[Record]:
    """Yield records from an open MEDLINE XML byte stream (a file or an efetch body)."""
    depth = 0
    root: ET.Element | None = None
    for event, elem in ET.iterparse(fh, events=("start", "end")):
        if event == "start":
            if root is None:
                root = elem
            depth += 1
            continue
        depth -= 1
        if depth != 1 or root is None:
            continue
        yield from _records(elem)
        root.clear()


def _records(elem: ET.Element) -> Iterator[Record]:
    if elem.tag == "DeleteCitation":
        for pmid in elem.iter("PMID"):
            if pmid.text:
                yield Deletion(pmid.text.strip())
        return
    citation = elem if elem.tag == "MedlineCitation" else elem.find("MedlineCitation")
    if citation is None:  # PubmedBookArticle and anything else we do not index
        return
    article = _article(citation)
    if article is not None:
        yield article


def _text(elem: ET.Element | None) -> str:
    return " ".join("".join(elem.itertext()).split()) if elem is not None else ""


def _article(citation: ET.Element) -> Article | None:
    pmid = _text(citation.find("PMID"))
    art = citation.find("Article")
    if not pmid or art is None:
        return None
    sections = []
    for part in art.iterfind("Abstract/AbstractText"):
        body = _text(part)
        if body:
            label = part.get("Label")
            sections.append(f"{label}: {body}" if label else body)
    abstract = " ".join(sections)
    if not abstract:
        return None
    title = _text(art.find("ArticleTitle")) or _text(art.find("VernacularTitle"))
    return Article(
        pmid=pmid,
        title=title,
        abstract=abstract,
        sentences=sentence_spans(abstract),
        journal=_text(art.find("Journal/Title")),
        year=_year(art),
    )


def _year(art: ET.Element) -> int | None:
    for path in (
        "Journal/JournalIssue/PubDate/Year",
        "Journal/JournalIssue/PubDate/MedlineDate",
        "ArticleDate/Year",
    ):
        match = _YEAR.search(_text(art.find(path)))
        if match:
            return int(match.group(1))
    return None
