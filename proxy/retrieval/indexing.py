"""The ingest loop shared by every index backend: files → records → batched writes.

Resumable and idempotent: a file is recorded as done (by path, size and mtime) only after all
its records are written, so an interrupted run redoes at most the file it was in, and the sink's
upsert skips records it already holds unchanged. Within a file, records apply in order, so a
``DeleteCitation`` after a revision wins, as NLM intends for update files.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from proxy.ingest import Article, Deletion, Record, expand_paths, parse_file

logger = logging.getLogger("veriproxy.index")
DEFAULT_BATCH = 256


class IndexSink(Protocol):
    def upsert(self, articles: Sequence[Article]) -> int: ...

    def delete(self, pmids: Iterable[str]) -> int: ...

    def file_done(self, key: str) -> bool: ...

    def mark_file_done(self, key: str, records: int) -> None: ...

    def close(self) -> None: ...


@dataclass(slots=True)
class IndexStats:
    files: int = 0
    skipped_files: int = 0
    records: int = 0
    written: int = 0
    deleted: int = 0


def file_key(path: Path) -> str:
    stat = path.stat()
    return f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def index_paths(
    paths: Iterable[Path | str],
    sink: IndexSink,
    *,
    batch_size: int = DEFAULT_BATCH,
    on_records: Callable[[int], None] = lambda n: None,
    parse: Callable[[Path], Iterable[Record]] = parse_file,
) -> IndexStats:
    """Ingest every file under ``paths`` into ``sink``; ``on_records`` drives a progress bar."""
    stats = IndexStats()
    for path in expand_paths(paths):
        key = file_key(path)
        if sink.file_done(key):
            stats.skipped_files += 1
            logger.info("skip %s (already indexed)", path)
            continue
        count = _index_file(parse(path), sink, batch_size, stats, on_records)
        sink.mark_file_done(key, count)
        stats.files += 1
        logger.info("indexed %s: %d records", path, count)
    return stats


def _index_file(
    records: Iterable[Record],
    sink: IndexSink,
    batch_size: int,
    stats: IndexStats,
    on_records: Callable[[int], None],
) -> int:
    batch: list[Article] = []
    count = 0

    def flush() -> None:
        if batch:
            stats.written += sink.upsert(batch)
            on_records(len(batch))
            batch.clear()

    for record in records:
        count += 1
        stats.records += 1
        if isinstance(record, Deletion):
            flush()
            stats.deleted += sink.delete([record.pmid])
            on_records(1)
        else:
            batch.append(record)
            if len(batch) >= batch_size:
                flush()
    flush()
    return count
