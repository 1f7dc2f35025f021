"""Build the shipped demo index from PubMedQA's expert-labelled set (MIT licence)::

    python -m proxy.data.build_demo [--data-dir ../shared/data]

PubMedQA keeps each abstract's labelled sections (``CONTEXTS`` with ``LABELS``) and holds its
conclusion back as ``LONG_ANSWER``; the demo record is the whole abstract again: the sections as
``LABEL: text`` followed by ``CONCLUSIONS: <long answer>``. PubMedQA's questions are the
articles' own titles, so the question is the title. The index is written in rollback-journal mode
and vacuumed, so the single file can be opened read-only from an installed package.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from proxy.data import DEMO_INDEX
from proxy.ingest import Article, sentence_spans
from verifiers.eval.data import data_dir


def pubmedqa_articles(path: Path) -> Iterator[Article]:
    with path.open(encoding="utf-8") as fh:
        data: dict[str, dict[str, Any]] = json.load(fh)
    for pmid, item in data.items():
        sections = [
            f"{label}: {' '.join(text.split())}"
            for label, text in zip(item["LABELS"], item["CONTEXTS"], strict=True)
        ]
        if item.get("LONG_ANSWER"):
            sections.append(f"CONCLUSIONS: {' '.join(item['LONG_ANSWER'].split())}")
        abstract = " ".join(sections)
        year = item.get("YEAR")
        yield Article(
            pmid=pmid,
            title=" ".join(item["QUESTION"].split()),
            abstract=abstract,
            sentences=sentence_spans(abstract),
            year=int(year) if year else None,
        )


def main(argv: Sequence[str] | None = None) -> int:
    from tqdm import tqdm

    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers import Encoder

    parser = argparse.ArgumentParser(description="build the shipped demo evidence index")
    parser.add_argument("--data-dir", type=Path, default=data_dir())
    parser.add_argument("--out", type=Path, default=DEMO_INDEX)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    source = args.data_dir / "pubmedqa" / "ori_pqal.json"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "demo.sqlite"
        index = SqliteIndex(work, Encoder(threads=args.threads))
        batch: list[Article] = []
        for article in tqdm(pubmedqa_articles(source), total=1000, unit="abstracts"):
            batch.append(article)
            if len(batch) == 64:
                index.upsert(batch)
                batch.clear()
        index.upsert(batch)
        index.optimize()
        index.close()
        conn = sqlite3.connect(work)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
        conn.close()
        args.out.write_bytes(work.read_bytes())
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
