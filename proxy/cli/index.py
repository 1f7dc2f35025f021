"""``veriproxy index PATH...``: ingest PubMed/MEDLINE XML (``.xml``, ``.xml.gz``: annual
baseline and update files) and JSONL into the embedded SQLite index or into OpenSearch.

Directories are searched recursively and their files applied in name order, so update files
follow the baseline and their ``DeleteCitation`` entries remove citations. Re-running is cheap:
finished files are skipped and unchanged abstracts are not re-embedded, so an interrupted run
resumes where it stopped.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

DEFAULT_DB = Path("veriproxy-index.sqlite")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("index", help="build the evidence index from PubMed XML or JSONL")
    parser.add_argument("paths", nargs="+", type=Path, help="files or directories")
    parser.add_argument("--backend", choices=["sqlite", "opensearch"], default="sqlite")
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, help="SQLite index file")
    parser.add_argument("--opensearch-url", default="http://127.0.0.1:9200")
    parser.add_argument("--opensearch-index", default="pubmed")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from proxy.ingest import IngestError
    from proxy.retrieval.base import RetrievalError
    from proxy.retrieval.indexing import IndexSink, index_paths
    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers import Encoder

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    encoder = Encoder(threads=args.threads)
    sink: IndexSink
    if args.backend == "opensearch":
        from proxy.retrieval.opensearch import OpenSearchConfig, OpenSearchSink

        config = OpenSearchConfig(url=args.opensearch_url, index=args.opensearch_index)
        try:
            sink = OpenSearchSink(config, encoder)
        except RetrievalError as exc:
            print(f"veriproxy index: {exc}")
            return 1
    else:
        sink = SqliteIndex(args.db, encoder)
    try:
        with tqdm(unit="records", desc="index") as bar:
            stats = index_paths(args.paths, sink, batch_size=args.batch_size, on_records=bar.update)
        if isinstance(sink, SqliteIndex) and stats.written + stats.deleted:
            sink.optimize()  # merge FTS5 segments: faster queries after a bulk load
    except (IngestError, RetrievalError, ValueError) as exc:
        print(f"veriproxy index: {exc}")
        return 1
    finally:
        sink.close()
    print(
        f"files indexed {stats.files}, skipped (already done) {stats.skipped_files}; "
        f"records {stats.records}, written {stats.written}, deleted {stats.deleted}"
    )
    return 0
