"""The embedded index: one SQLite file holding abstracts, an FTS5 (BM25) index over title and
abstract, and one all-MiniLM-L6-v2 vector per abstract (float16 BLOB).

Dense search is exact: all vectors are held in memory as one float32 matrix and scored with a
single matrix-vector product: p50 11 ms at 100k abstracts and 63 ms at 1M (1.5 GB of RAM) on two
cores, while FTS5's BM25 takes 89 ms at 100k (``bench/costs.py``, docs/operations.md). Past
about 100k abstracts use the OpenSearch backend (approximate k-NN, sharded BM25).

Writes are idempotent: an article whose title and abstract are unchanged is not re-embedded, so
re-running an ingest (or resuming one) only pays for what is new. Finished input files are
recorded in ``files`` so that a re-run skips them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from proxy.ingest import Article
from proxy.retrieval.base import RetrievalError
from proxy.retrieval.text import content_words
from verifiers import Encoder

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY,
    pmid TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    abstract TEXT NOT NULL,
    sentences TEXT NOT NULL,
    journal TEXT NOT NULL,
    year INTEGER,
    hash TEXT NOT NULL,
    vec BLOB NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    title, abstract, content='docs', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO docs_fts(rowid, title, abstract) VALUES (new.id, new.title, new.abstract);
END;
CREATE TRIGGER IF NOT EXISTS docs_ad AFTER DELETE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, title, abstract)
    VALUES ('delete', old.id, old.title, old.abstract);
END;
CREATE TRIGGER IF NOT EXISTS docs_au AFTER UPDATE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, title, abstract)
    VALUES ('delete', old.id, old.title, old.abstract);
    INSERT INTO docs_fts(rowid, title, abstract) VALUES (new.id, new.title, new.abstract);
END;
CREATE TABLE IF NOT EXISTS files (key TEXT PRIMARY KEY, records INTEGER NOT NULL);
"""


def fts_query(text: str) -> str:
    """A safe FTS5 MATCH expression: the query's words, quoted, OR-ed (FTS5 syntax in a user's
    question — quotes, ``NEAR``, ``-`` — must never be interpreted)."""
    return " OR ".join(f'"{w}"' for w in content_words(text))


def embedding_text(article: Article) -> str:
    return f"{article.title} {article.abstract}".strip()


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _hash(article: Article) -> str:
    return hashlib.sha1(f"{article.title}\x00{article.abstract}".encode()).hexdigest()


class SqliteIndex:
    """Read and write access to one index file. Thread-safe (one connection behind a lock)."""

    def __init__(self, path: Path | str, encoder: Encoder, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._encoder = encoder
        self._lock = threading.Lock()
        if readonly:
            if not self.path.is_file():
                raise RetrievalError(f"no index at {self.path}; build one with `veriproxy index`")
            # Read-only, not immutable: a concurrent `veriproxy index` run stays visible.
            uri = f"file:{self.path.resolve()}?mode=ro"
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(_SCHEMA)
        self._matrix: NDArray[np.float32] | None = None
        self._matrix_pmids: list[str] = []
        self._data_version = -1

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # --- writes -------------------------------------------------------------------------

    def upsert(self, articles: Sequence[Article]) -> int:
        """Insert or update articles; returns how many were new or changed (and embedded)."""
        with self._lock:
            hashes = {a.pmid: _hash(a) for a in articles}
            known = dict(
                self._conn.execute(
                    f"SELECT pmid, hash FROM docs WHERE pmid IN ({_marks(len(hashes))})",
                    list(hashes),
                ).fetchall()
            )
            # Last write of a PMID within the batch wins, as in a MEDLINE update file.
            fresh = {a.pmid: a for a in articles if known.get(a.pmid) != hashes[a.pmid]}
            todo = list(fresh.values())
            if not todo:
                return 0
            vectors = self._encoder.encode([embedding_text(a) for a in todo]).astype(np.float16)
            with self._conn:
                self._conn.executemany(
                    """INSERT INTO docs (pmid, title, abstract, sentences, journal, year, hash, vec)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                       ON CONFLICT(pmid) DO UPDATE SET title=excluded.title,
                         abstract=excluded.abstract, sentences=excluded.sentences,
                         journal=excluded.journal, year=excluded.year, hash=excluded.hash,
                         vec=excluded.vec""",
                    [
                        (
                            a.pmid,
                            a.title,
                            a.abstract,
                            json.dumps(a.sentences),
                            a.journal,
                            a.year,
                            hashes[a.pmid],
                            vec.tobytes(),
                        )
                        for a, vec in zip(todo, vectors, strict=True)
                    ],
                )
            self._matrix = None
            return len(todo)

    def delete(self, pmids: Iterable[str]) -> int:
        with self._lock, self._conn:
            cur = self._conn.executemany("DELETE FROM docs WHERE pmid = ?", [(p,) for p in pmids])
            self._matrix = None
            return cur.rowcount

    def file_done(self, key: str) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM files WHERE key = ?", (key,)).fetchone()
            return row is not None

    def mark_file_done(self, key: str, records: int) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO files (key, records) VALUES (?, ?)", (key, records)
            )

    def optimize(self) -> None:
        """Merge FTS5 segments after a bulk load (faster queries, smaller file)."""
        with self._lock, self._conn:
            self._conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")

    # --- reads --------------------------------------------------------------------------

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM docs").fetchone()[0])

    def lexical(self, query: str, n: int) -> dict[str, float]:
        """BM25 scores (higher is better) of the best ``n`` abstracts."""
        match = fts_query(query)
        if not match:
            return {}
        with self._lock:
            # Rank inside FTS5 first, then join only the top n (joining every match before
            # sorting costs twice the time on a large index).
            rows = self._conn.execute(
                """SELECT docs.pmid, -hits.rank FROM (
                       SELECT rowid, rank FROM docs_fts WHERE docs_fts MATCH ?
                       ORDER BY rank LIMIT ?
                   ) AS hits JOIN docs ON docs.id = hits.rowid""",
                (match, n),
            ).fetchall()
        return {pmid: float(score) for pmid, score in rows}

    def semantic(self, query: str, n: int) -> dict[str, float]:
        """Cosine similarities of the best ``n`` abstracts (exact search)."""
        return self.semantic_vector(self._encoder.encode([query])[0], n)

    def semantic_vector(self, vector: NDArray[np.float32], n: int) -> dict[str, float]:
        matrix, pmids = self._vectors()
        if not pmids:
            return {}
        scores = matrix @ vector
        n = min(n, len(pmids))
        top = np.argpartition(-scores, n - 1)[:n]
        return {pmids[i]: float(scores[i]) for i in top}

    def articles(self, pmids: Sequence[str]) -> dict[str, Article]:
        if not pmids:
            return {}
        with self._lock:
            rows = self._conn.execute(
                f"""SELECT pmid, title, abstract, sentences, journal, year FROM docs
                    WHERE pmid IN ({",".join("?" * len(pmids))})""",
                list(pmids),
            ).fetchall()
        return {
            r[0]: Article(
                pmid=r[0],
                title=r[1],
                abstract=r[2],
                sentences=tuple((s, e) for s, e in json.loads(r[3])),
                journal=r[4],
                year=r[5],
            )
            for r in rows
        }

    def _vectors(self) -> tuple[NDArray[np.float32], list[str]]:
        with self._lock:
            version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            if self._matrix is None or version != self._data_version:
                rows = self._conn.execute("SELECT pmid, vec FROM docs ORDER BY id").fetchall()
                dim = self._encoder.dim
                matrix = np.empty((len(rows), dim), dtype=np.float32)
                for i, (_, blob) in enumerate(rows):
                    matrix[i] = np.frombuffer(blob, dtype=np.float16)
                self._matrix, self._matrix_pmids = matrix, [r[0] for r in rows]
                self._data_version = version
            return self._matrix, self._matrix_pmids
