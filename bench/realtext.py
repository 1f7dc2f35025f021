"""Real text from every corpus in the data directory (``verifiers.eval.data``: ``../shared/data``
unless ``$VERIPROXY_DATA_DIR`` says otherwise), for sweeps and fuzzing.

Format-agnostic on purpose: from JSON / JSONL files every string value, from CSV / TSV every
cell, from plain text files every line, from gzipped PubMed XML every ``AbstractText``; kept when
between ``min_chars`` and ``max_chars`` long. What the corpora hold is what a client or an
upstream sends: units (µg, μmol/l, mg·kg⁻¹), odd punctuation, non-Latin scripts, long sentences.
BioASQ (internal use only) and TaxiNLI (training only) are skipped.
"""

from __future__ import annotations

import csv
import functools
import gzip
import json
import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from verifiers.eval.data import data_dir

DEFAULT_DATA_DIR = data_dir(relative_to=Path(__file__).resolve().parents[1])
SKIPPED = frozenset({"bioasq", "taxinli"})
_ABSTRACT = re.compile(rb"<AbstractText[^>]*>(.*?)</AbstractText>", re.S)


@functools.cache  # reading the corpora takes seconds: test modules in one process share it
def real_texts(
    data_dir: Path = DEFAULT_DATA_DIR,
    *,
    per_corpus: int = 50,
    min_chars: int = 20,
    max_chars: int = 4000,
) -> dict[str, list[str]]:
    """Up to ``per_corpus`` texts from each corpus (a top-level folder), keyed by its name;
    empty when the data directory is missing."""
    out: dict[str, list[str]] = {}
    if not data_dir.is_dir():
        return out
    for corpus in sorted(p for p in data_dir.iterdir() if p.is_dir() and p.name not in SKIPPED):
        files = sorted(f for f in corpus.rglob("*") if f.is_file() and f.parent.name not in SKIPPED)
        texts = (t for f in files for t in _texts(f) if min_chars <= len(t.strip()) <= max_chars)
        pool = list(islice(dict.fromkeys(t.strip() for t in texts), 5000))
        # Text beyond ASCII first (units, symbols, other scripts), then the rest.
        odd = [t for t in pool if not t.isascii()]
        found = odd[: per_corpus // 2] + [t for t in pool if t.isascii()]
        if found:
            out[corpus.name] = found[:per_corpus]
    return out


def _texts(path: Path) -> Iterator[str]:
    name = path.name
    try:
        if name.endswith(".xml.gz"):
            with gzip.open(path, "rb") as f:
                for match in _ABSTRACT.finditer(f.read(4_000_000)):
                    yield match.group(1).decode("utf-8", "replace")
        elif name.endswith((".json", ".jsonl")):
            text = path.read_text(encoding="utf-8")[:20_000_000]
            try:
                yield from _strings(json.loads(text))
            except ValueError:  # JSON lines, whatever the file is called
                for line in text.splitlines()[:2000]:
                    if line.strip():
                        yield from _strings(json.loads(line))
        elif name.endswith((".csv", ".tsv")):
            with path.open(encoding="utf-8", newline="") as f:
                delimiter = "\t" if name.endswith(".tsv") else ","
                for row in islice(csv.reader(f, delimiter=delimiter), 2000):
                    yield from row
        elif name.endswith(".txt") or name.startswith(("s1.", "s2.")):
            with path.open(encoding="utf-8", errors="replace") as f:
                yield from (line.rstrip("\n") for line in islice(f, 2000))
    except (OSError, ValueError, csv.Error):
        return


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
