"""JSONL abstracts, one object per line (plain or ``.jsonl.gz``).

Fields: ``pmid`` (or ``id`` / ``doc_id`` / ``_id``), ``title``, ``abstract`` (or ``text``) as a
string or as a list of sentences (kept as given, e.g. SciFact's gold split), optional
``journal`` and ``year``. ``{"pmid": ..., "delete": true}`` removes a record.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from proxy.ingest._article import Article, Deletion, Record, join_sentences, sentence_spans

_ID_KEYS = ("pmid", "id", "doc_id", "_id")


class JSONLError(ValueError):
    """A line that is not a usable abstract record; the message names file and line."""


def parse_jsonl(path: Path | str) -> Iterator[Record]:
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = record_from_mapping(json.loads(line))
            except (ValueError, TypeError) as exc:
                raise JSONLError(f"{path}:{lineno}: {exc}") from exc
            if record is not None:
                yield record


def record_from_mapping(obj: Mapping[str, Any]) -> Record | None:
    """One JSON object as a record; ``None`` for a record without abstract text."""
    if not isinstance(obj, Mapping):
        raise TypeError("each line must be a JSON object")
    pmid = next((str(obj[k]) for k in _ID_KEYS if obj.get(k) not in (None, "")), None)
    if pmid is None:
        raise ValueError(f"no id field (one of {', '.join(_ID_KEYS)})")
    if obj.get("delete"):
        return Deletion(pmid)
    raw = obj.get("abstract", obj.get("text", ""))
    if isinstance(raw, list):
        abstract, spans = join_sentences([str(s) for s in raw])
    else:
        abstract = " ".join(str(raw).split())
        spans = sentence_spans(abstract)
    if not abstract:
        return None
    year = obj.get("year")
    return Article(
        pmid=pmid,
        title=" ".join(str(obj.get("title", "")).split()),
        abstract=abstract,
        sentences=spans,
        journal=str(obj.get("journal", "")),
        year=int(year) if year not in (None, "") else None,
    )
