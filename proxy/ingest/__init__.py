"""Streaming readers for abstracts: PubMed/MEDLINE XML (baseline and update files) and JSONL.

Both yield :class:`Article` records (and :class:`Deletion` markers from MEDLINE update files);
the SQLite and OpenSearch indexers consume the same stream.
"""

from __future__ import annotations

from proxy.ingest._article import Article, Deletion, Record, sentence_spans, to_evidence
from proxy.ingest.jsonl import parse_jsonl
from proxy.ingest.medline import parse_medline
from proxy.ingest.sources import IngestError, expand_paths, parse_file

__all__ = [
    "Article",
    "Deletion",
    "IngestError",
    "Record",
    "expand_paths",
    "parse_file",
    "parse_jsonl",
    "parse_medline",
    "sentence_spans",
    "to_evidence",
]
