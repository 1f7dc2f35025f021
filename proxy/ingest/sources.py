"""Which reader handles which file, and how command-line paths expand into files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from proxy.ingest._article import Record
from proxy.ingest.jsonl import parse_jsonl
from proxy.ingest.medline import parse_medline

_XML = (".xml", ".xml.gz")
_JSONL = (".jsonl", ".jsonl.gz", ".ndjson")


class IngestError(ValueError):
    """A path that names no file we can read."""


def _kind(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(_XML):
        return "xml"
    if name.endswith(_JSONL):
        return "jsonl"
    return None


def expand_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Files named directly, plus readable files found (recursively) under directories; sorted
    within a directory so that update files apply in NLM's numbering order."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*") if p.is_file() and _kind(p)))
        elif path.is_file():
            if _kind(path) is None:
                raise IngestError(f"{path}: not PubMed XML (.xml, .xml.gz) or JSONL (.jsonl)")
            out.append(path)
        else:
            raise IngestError(f"{path}: no such file or directory")
    return out


def parse_file(path: Path) -> Iterator[Record]:
    """Records of one file, by its extension."""
    if _kind(path) == "xml":
        return parse_medline(path)
    if _kind(path) == "jsonl":
        return parse_jsonl(path)
    raise IngestError(f"{path}: not PubMed XML (.xml, .xml.gz) or JSONL (.jsonl)")
