"""``veriproxy index PATH...``: ingest PubMed/MEDLINE XML (``.xml``, ``.xml.gz``: annual
baseline and update files) and JSONL into the embedded SQLite index or into OpenSearch.

Directories are searched recursively and their files applied in name order, so update files
follow the baseline and their ``DeleteCitation`` entries remove citations. Re-running is cheap:
finished files are skipped and unchanged abstracts are not re-embedded, so an interrupted run
resumes where it stopped. The inputs are checked before the index is opened; a run that fails
before it wrote anything removes the index file it created (and the folders it made for it).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from proxy.cli._parser import CliError

DEFAULT_DB = Path("veriproxy-index.sqlite")
_SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("index", help="build the evidence index from PubMed XML or JSONL")
    parser.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="files or directories to ingest"
    )
    parser.add_argument(
        "--backend", choices=["sqlite", "opensearch"], default="sqlite", help="where to index"
    )
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, help="SQLite index file")
    parser.add_argument(
        "--opensearch-url", default="http://127.0.0.1:9200", help="OpenSearch endpoint"
    )
    parser.add_argument("--opensearch-index", default="pubmed", help="OpenSearch index name")
    parser.add_argument("--batch-size", type=int, default=256, help="records per write")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from proxy.ingest import IngestError, expand_paths
    from proxy.retrieval.base import RetrievalError
    from proxy.retrieval.indexing import IndexSink, index_paths
    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers import Encoder

    try:
        files = expand_paths(args.paths)
    except IngestError as exc:
        raise CliError(str(exc)) from exc
    if not files:
        raise CliError("no PubMed XML (.xml, .xml.gz) or JSONL (.jsonl) files in the given paths")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    encoder = Encoder(threads=args.threads)
    with removed_unless_written(None if args.backend == "opensearch" else args.db) as written:
        sink: IndexSink
        if args.backend == "opensearch":
            from proxy.retrieval.opensearch import OpenSearchConfig, OpenSearchSink

            config = OpenSearchConfig(url=args.opensearch_url, index=args.opensearch_index)
            try:
                sink = OpenSearchSink(config, encoder)
            except RetrievalError as exc:
                raise CliError(str(exc)) from exc
        else:
            sink = SqliteIndex(args.db, encoder)
        try:
            with tqdm(unit="records", desc="index") as bar:

                def progress(records: int) -> None:  # called once a batch is committed
                    written.records += records
                    bar.update(records)

                stats = index_paths(files, sink, batch_size=args.batch_size, on_records=progress)
            if isinstance(sink, SqliteIndex) and stats.written + stats.deleted:
                sink.optimize()  # merge FTS5 segments: faster queries after a bulk load
        except (IngestError, RetrievalError, ValueError) as exc:
            raise CliError(str(exc)) from exc
        finally:
            sink.close()
    print(
        f"files indexed {stats.files}, skipped (already done) {stats.skipped_files}; "
        f"records {stats.records}, written {stats.written}, deleted {stats.deleted}"
    )
    return 0


@dataclass(slots=True)
class Written:
    records: int = 0


@contextmanager
def removed_unless_written(db: Path | None) -> Iterator[Written]:
    """Remove a SQLite index that this run creates, and the folders made for it, when the run
    fails (or is interrupted) before it committed a record (the caller counts them in the
    yielded ``Written``). One that holds records is kept: running again resumes from it."""
    written = Written()
    if db is None or db.exists():
        yield written
        return
    made = [p for p in db.resolve().parents if not p.exists()]
    try:
        yield written
    except BaseException:
        if written.records:
            print(f"the partial index {db} is kept: run again to resume", file=sys.stderr)
            raise
        for path in (db, *(db.with_name(db.name + s) for s in _SQLITE_SIDECARS)):
            path.unlink(missing_ok=True)
        for folder in made:  # innermost first
            try:
                folder.rmdir()
            except OSError:
                break  # something else was put there meanwhile: leave it
        raise
