"""Cost curves for sizing a deployment: verification time against answer length and evidence
size, retrieval latency and memory against index size. Figures as JSON on stdout, progress on
stderr, and a two-panel PNG.

    python bench/costs.py                                   # both parts, plot to docs/costs.png
    python bench/costs.py --part verify [--runs 5] [--threads 2]
    python bench/costs.py --part retrieval [--sizes 10000,100000,1000000] [--queries 200]
    python bench/costs.py --part all --sizes 2000,5000 --sources 200 --runs 1 --queries 20 \\
        --sentences 1,5 --evidence 5,10 --plot /tmp/costs.png   # a smoke run

Verification (``--part verify``): ``verifiers.engine.Verifier`` with the bundled NLI model, set up
as bench/verify.py does, on a grid of answer length (1, 5, 20, 50 sentences) by evidence size
(5, 10, 50 abstracts). Answers are dev claims (and their rationale sentences) that the cited
abstract supports, as ``verifiers.eval.citations.load_supported`` gives them (SciFact, plus
Check-COVID); the evidence is the cited abstracts padded with unrelated ones. An answer cites
min(sentences, abstracts) abstracts in turn; when it is longer than the supported claims of
those abstracts, the claims are reused cyclically. Each cell: one warm-up, then ``--runs`` timed
runs; every run gives its abstracts fresh PMIDs, so no window cache (abbreviations, sentence
embeddings) is reused across runs, as a proxy request with new evidence would see it.

Retrieval (``--part retrieval``): the embedded index (``SqliteIndex``: FTS5 BM25 + float16
vectors, exact dense search in memory) behind ``HybridRetriever``, at 10k, 100k and 1M
abstracts. THE LARGE INDEXES ARE REWORDED COPIES, NOT REAL ABSTRACTS: the real abstracts in
../shared/data (SciFact corpus, PubMedQA, Check-COVID, the MEDLINE sample; about 7,000) are
embedded once with the real encoder (cached under ~/.cache/veriproxy/bench/costs-vectors/), and
copy k >= 1 of an abstract is a seeded word-level rewrite of its title and sentences (words
dropped, duplicated or swapped, about one edit per eight words, seeded by copy and source) under
PMID ``<pmid>-<k>``, with the source vector plus small Gaussian noise (seeded by k),
re-normalised. Rows are written straight into the product's schema in large transactions, then
the product's FTS5 ``optimize`` runs. Indexes are built into
~/.cache/veriproxy/bench/costs-<size>.sqlite, resumable, and reused when complete. Each size is
measured in a fresh subprocess (so the peak RSS, VmHWM, is per size): the index is opened
read-only as the proxy opens it, warmed up, then ``--queries`` SciFact dev claims run top-10 in
hybrid, dense and BM25 mode in turn (query encoding included). The largest measured size whose
dense (and hybrid) p50 stays within 20 ms is named.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from proxy.data.build_demo import pubmedqa_articles
from proxy.ingest import Article, parse_jsonl, parse_medline
from proxy.ingest._article import join_sentences
from proxy.ingest.jsonl import record_from_mapping
from proxy.retrieval import HybridConfig, HybridRetriever, Mode
from proxy.retrieval.evaluation import DEFAULT_CACHE, load_scifact
from proxy.retrieval.sqlite_store import SqliteIndex, embedding_text
from verifiers import Encoder
from verifiers.eval.data import data_dir

if TYPE_CHECKING:
    from verifiers import Evidence
    from verifiers.engine import Verifier

SENTENCES = (1, 5, 20, 50)
EVIDENCE = (5, 10, 50)
SIZES = (10_000, 100_000, 1_000_000)
MAX_SIZE = 2_000_000
MAX_GRID = 200  # sentences or abstracts per cell
MODES = (Mode.HYBRID, Mode.DENSE, Mode.BM25)
BUDGET_MS = 20.0
TOP_K = 10
WARMUP_QUERIES = 10
CACHE = DEFAULT_CACHE / "bench"
CHUNK = 64  # real abstracts per cached vector file
TRANSACTION = 10_000  # rows per write transaction
NOISE = 0.015  # per-dimension sigma: a copy's cosine to its source is about 0.96
EDIT_EVERY = 8  # about one word edit per this many words
SEED_STRIDE = 1_000_003
RUN_OFFSET = 10**10  # fresh PMIDs per verification run: run * RUN_OFFSET + pmid
RECIPE = "costs-1"  # bump when the copy recipe changes: cached indexes are then rebuilt
STATUS = Path("/proc/self/status")
INSERT = """INSERT INTO docs (pmid, title, abstract, sentences, journal, year, hash, vec)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)"""

Row = tuple[str, str, str, str, str, int | None, str, bytes]


def log(message: str) -> None:
    print(f"[costs] {message}", file=sys.stderr, flush=True)


# --- shared figures ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Latency:
    p50_ms: float
    p99_ms: float
    mean_ms: float

    @classmethod
    def of(cls, ms: Sequence[float]) -> Latency:
        ordered = sorted(ms)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        return cls(
            round(statistics.median(ordered), 2), round(p99, 2), round(statistics.fmean(ms), 2)
        )


def vm_kib(field: str) -> int:
    """A ``/proc/self/status`` figure in KiB (``VmRSS``, ``VmHWM``); 0 where unavailable."""
    try:
        lines = STATUS.read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


# --- part 1: verification ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClaimPool:
    """Supported sentences per abstract, and the abstracts."""

    claims: dict[str, tuple[str, ...]]
    docs: dict[str, Evidence]


@dataclass(frozen=True, slots=True)
class VerifyCell:
    sentences: int
    abstracts: int
    cited: int
    runs: int
    latency: Latency


@dataclass(frozen=True, slots=True)
class VerifyResult:
    backend: str
    threads: int
    cells: tuple[VerifyCell, ...]


def load_pool(data: Path) -> ClaimPool:
    from verifiers.eval.citations import load_supported

    pairs, docs = load_supported(data)
    claims: dict[str, list[str]] = {}
    for claim, pmid in pairs:
        claims.setdefault(pmid, []).append(claim)
    return ClaimPool({p: tuple(c) for p, c in claims.items()}, docs)


def make_verifier(nli_name: str, nli_model: str | None, threads: int) -> Verifier:
    """As bench/verify.py builds it: the NLI backend, lexical windows sized for the model, the
    scispaCy abbreviation detector, one selector for all runs."""
    from verifiers.engine import Verifier
    from verifiers.nli.registry import create_backend
    from verifiers.windows import WindowSelector

    options: dict[str, object] = {"threads": threads}
    if nli_model:
        options["model"] = nli_model
    nli = create_backend(nli_name, **options)
    sizes = getattr(getattr(nli, "config", None), "window_sizes", None)
    selector = WindowSelector(None, max_sentences=max(sizes) if sizes else 3)
    return Verifier(nli, selector=selector)


def make_case(
    pool: ClaimPool, sentences: int, abstracts: int, rng: random.Random, run: int
) -> tuple[str, list[Evidence]]:
    """An answer of ``sentences`` cited sentences and ``abstracts`` abstracts of evidence, the
    abstracts under PMIDs unique to ``run``."""
    cited = rng.sample(sorted(pool.claims), min(sentences, abstracts))
    others = [d for d in rng.sample(sorted(pool.docs), len(pool.docs)) if d not in cited]
    chosen = cited + others[: abstracts - len(cited)]
    fresh = {d: str(int(d) + (run + 1) * RUN_OFFSET) for d in chosen}
    parts = []
    for i in range(sentences):
        doc = cited[i % len(cited)]
        claims = pool.claims[doc]
        claim = claims[(i // len(cited)) % len(claims)]  # cyclic reuse past the supply
        parts.append(f"{claim.rstrip('. ')} [PMID:{fresh[doc]}].")
    return " ".join(parts), [replace(pool.docs[d], pmid=fresh[d]) for d in chosen]


def time_cell(
    verifier: Verifier,
    pool: ClaimPool,
    sentences: int,
    abstracts: int,
    runs: int,
    rng: random.Random,
    counter: Iterator[int],
) -> VerifyCell:
    times: list[float] = []
    for attempt in range(1 + runs):  # the first is the warm-up
        answer, evidence = make_case(pool, sentences, abstracts, rng, next(counter))
        started = time.perf_counter()
        verifier.verify(answer, evidence)
        if attempt:
            times.append((time.perf_counter() - started) * 1000)
    return VerifyCell(sentences, abstracts, min(sentences, abstracts), runs, Latency.of(times))


def run_verification(args: argparse.Namespace) -> VerifyResult:
    pool = load_pool(args.data_dir)
    largest = max(args.evidence)
    if largest > len(pool.docs):
        raise SystemExit(f"--evidence {largest}: only {len(pool.docs)} abstracts available")
    verifier = make_verifier(args.nli, args.nli_model, args.threads)
    rng = random.Random(args.seed)
    counter = itertools.count()
    cells = []
    grid = list(itertools.product(args.sentences, args.evidence))
    for done, (sentences, abstracts) in enumerate(grid, 1):
        cell = time_cell(verifier, pool, sentences, abstracts, args.runs, rng, counter)
        cells.append(cell)
        log(
            f"verify cell {done}/{len(grid)}: {sentences} sentences x {abstracts} abstracts "
            f"p50 {cell.latency.p50_ms:.0f} ms p99 {cell.latency.p99_ms:.0f} ms"
        )
    return VerifyResult(str(verifier.nli.version), args.threads, tuple(cells))


# --- part 2: retrieval, building the indexes --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """A real abstract: the record, its sentence texts, its vector."""

    article: Article
    sentences: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Corpus:
    sources: tuple[Source, ...]
    vectors: NDArray[np.float32]
    key: str  # identifies the sources and their order
    embed_s: float  # embedding time this run (0 when every vector was cached)


@dataclass(frozen=True, slots=True)
class IndexMeta:
    """The sidecar of a cached index: what built it, how long it took, whether it is done."""

    fingerprint: str
    size: int
    build_s: float
    complete: bool


@dataclass(frozen=True, slots=True)
class BuiltIndex:
    size: int
    path: Path
    build_s: float
    file_mb: float
    reused: bool


def covid_articles(path: Path) -> Iterator[Article]:
    """Check-COVID's corpus (one JSON object a line, abstracts as sentence lists)."""
    with path.open(encoding="utf-8") as fh:
        for line in filter(str.strip, fh):
            row = json.loads(line)
            fields = {"id": row["cord_id"], "title": row["title"], "abstract": row["abstract"]}
            article = record_from_mapping(fields)
            if isinstance(article, Article):
                yield article


def real_articles(data: Path) -> Iterator[Article]:
    """Every real abstract in the shared data, SciFact first, then PubMedQA, Check-COVID and
    the MEDLINE sample (read lazily: a smoke run reads only what it uses)."""
    streams = (
        parse_jsonl(data / "scifact" / "corpus.jsonl"),
        pubmedqa_articles(data / "pubmedqa" / "ori_pqal.json"),
        covid_articles(data / "check_covid" / "corpus.json"),
        parse_medline(data / "medline_sample" / "medline16n0902.xml.gz"),
    )
    for record in itertools.chain.from_iterable(streams):
        if isinstance(record, Article):
            yield record


def load_sources(data: Path, limit: int | None) -> list[Source]:
    seen: set[str] = set()
    sources: list[Source] = []
    for article in real_articles(data):
        if limit is not None and len(sources) >= limit:
            break
        if article.pmid in seen:
            continue
        seen.add(article.pmid)
        texts = tuple(article.abstract[s:e] for s, e in article.sentences)
        sources.append(Source(article, texts))
    return sources


def content_hash(title: str, abstract: str) -> str:
    """As ``SqliteIndex`` hashes an article."""
    return hashlib.sha1(f"{title}\x00{abstract}".encode()).hexdigest()


def embed_sources(sources: Sequence[Source], encoder: Encoder, cache: Path) -> Corpus:
    """The sources' vectors, embedded once per chunk of ``CHUNK`` and cached by content."""
    cache.mkdir(parents=True, exist_ok=True)
    parts: list[NDArray[np.float32]] = []
    keys: list[str] = []
    spent = 0.0
    for start in range(0, len(sources), CHUNK):
        chunk = [s.article for s in sources[start : start + CHUNK]]
        ids = "\n".join(f"{a.pmid}\x00{content_hash(a.title, a.abstract)}" for a in chunk)
        key = hashlib.sha1(ids.encode()).hexdigest()[:20]
        path = cache / f"{key}.npy"
        if not path.exists():
            started = time.perf_counter()
            vectors = encoder.encode([embedding_text(a) for a in chunk])
            spent += time.perf_counter() - started
            tmp = path.with_suffix(".tmp")
            with tmp.open("wb") as fh:
                np.save(fh, vectors)
            tmp.replace(path)
            log(f"embedding {len(sources)} real abstracts: {start + len(chunk)}/{len(sources)}")
        parts.append(np.load(path).astype(np.float32))
        keys.append(key)
    corpus_key = hashlib.sha1(" ".join(keys).encode()).hexdigest()[:20]
    return Corpus(tuple(sources), np.concatenate(parts), corpus_key, round(spent, 1))


def reword(text: str, rng: random.Random) -> str:
    """A word-level rewrite: about one word in ``EDIT_EVERY`` dropped, doubled or swapped."""
    words = text.split()
    if len(words) < 2:
        return text
    for _ in range(max(1, len(words) // EDIT_EVERY)):
        j = rng.randrange(len(words) - 1)
        op = rng.randrange(3)
        if op == 0 and len(words) > 2:
            del words[j]
        elif op == 1:
            words.insert(j, words[j])
        else:
            words[j], words[j + 1] = words[j + 1], words[j]
    return " ".join(words)


def copy_vectors(base: NDArray[np.float32], k: int) -> NDArray[np.float16]:
    """Copy ``k`` of every source vector: the vector plus noise seeded by ``k``, unit length."""
    if k == 0:
        return base.astype(np.float16)
    noise = np.random.default_rng(k).standard_normal(base.shape, dtype=np.float32)
    moved = base + NOISE * noise
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    return moved.astype(np.float16)


def copy_row(source: Source, index: int, k: int, vector: NDArray[np.float16]) -> Row:
    """Row ``k * len(sources) + index``: the real abstract for ``k == 0``, else a rewrite."""
    a = source.article
    if k == 0:
        title, abstract, spans, pmid = a.title, a.abstract, a.sentences, a.pmid
    else:
        rng = random.Random(k * SEED_STRIDE + index)
        title = reword(a.title, rng)
        abstract, spans = join_sentences([reword(s, rng) for s in source.sentences])
        pmid = f"{a.pmid}-{k}"
    sentences = json.dumps(spans)
    return (
        pmid,
        title,
        abstract,
        sentences,
        a.journal,
        a.year,
        content_hash(title, abstract),
        vector.tobytes(),
    )


def rows(corpus: Corpus, first: int, last: int) -> list[Row]:
    """Rows ``first`` to ``last - 1`` of any index built from ``corpus`` (a prefix of one)."""
    n = len(corpus.sources)
    out: list[Row] = []
    for k in range(first // n, (last - 1) // n + 1):
        vectors = copy_vectors(corpus.vectors, k)
        for i in range(max(first, k * n), min(last, (k + 1) * n)):
            out.append(copy_row(corpus.sources[i - k * n], i - k * n, k, vectors[i - k * n]))
    return out


def read_meta(path: Path) -> IndexMeta | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return IndexMeta(
            str(raw["fingerprint"]), int(raw["size"]), float(raw["build_s"]), bool(raw["complete"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_meta(path: Path, meta: IndexMeta) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(meta)), encoding="utf-8")
    tmp.replace(path)


def index_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def row_count(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
    finally:
        conn.close()


def file_mb(path: Path) -> float:
    files = index_files(path)[:2]  # the database and its WAL (the -shm is a memory map)
    return round(sum(p.stat().st_size for p in files if p.exists()) / 1e6, 1)


def build_index(size: int, corpus: Corpus, encoder: Encoder, cache: Path) -> BuiltIndex:
    """``costs-<size>.sqlite``: reused when complete, resumed when interrupted."""
    path = cache / f"costs-{size}.sqlite"
    meta_path = path.with_suffix(".json")
    fingerprint = f"{RECIPE}:{corpus.key}:{NOISE}:{EDIT_EVERY}:{size}"
    meta = read_meta(meta_path)
    if meta is None or meta.fingerprint != fingerprint or not path.exists():
        for stale in index_files(path):
            stale.unlink(missing_ok=True)
        meta = IndexMeta(fingerprint, size, 0.0, False)
    elif meta.complete and row_count(path) == size:
        log(f"reusing {path} ({size} abstracts, built in {meta.build_s:.0f} s)")
        return BuiltIndex(size, path, meta.build_s, file_mb(path), True)
    SqliteIndex(path, encoder).close()  # the product's schema, in WAL mode
    started = time.perf_counter()
    spent = meta.build_s
    write_meta(meta_path, meta)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    try:
        done = int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
        for first in range(done, size, TRANSACTION):
            last = min(size, first + TRANSACTION)
            with conn:
                conn.executemany(INSERT, rows(corpus, first, last))
            elapsed = spent + time.perf_counter() - started
            write_meta(meta_path, IndexMeta(fingerprint, size, round(elapsed, 1), False))
            log(f"building {size} abstracts: {last}/{size} ({elapsed:.0f} s)")
    finally:
        conn.close()
    store = SqliteIndex(path, encoder)
    store.optimize()  # as `veriproxy index` ends
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    build_s = round(spent + time.perf_counter() - started, 1)
    write_meta(meta_path, IndexMeta(fingerprint, size, build_s, True))
    log(f"built {path}: {size} abstracts in {build_s:.0f} s, {file_mb(path)} MB")
    return BuiltIndex(size, path, build_s, file_mb(path), False)


# --- part 2: retrieval, measuring (in a subprocess per index) ---------------------------------


@dataclass(frozen=True, slots=True)
class ModeLatency:
    mode: str
    latency: Latency


@dataclass(frozen=True, slots=True)
class Measured:
    """What the measuring subprocess reports for one index."""

    count: int
    queries: int
    base_rss_mib: float  # after imports and the encoder, before the index is opened
    peak_rss_mib: float  # VmHWM: the whole process's peak
    modes: tuple[ModeLatency, ...]


@dataclass(frozen=True, slots=True)
class IndexPoint:
    size: int
    build_s: float
    file_mb: float
    reused: bool
    measured: Measured

    def p50(self, mode: Mode) -> float | None:
        found = [m.latency.p50_ms for m in self.measured.modes if m.mode == mode.value]
        return found[0] if found else None


@dataclass(frozen=True, slots=True)
class RetrievalResult:
    real_abstracts: int
    embed_s: float
    encoder_threads: int
    points: tuple[IndexPoint, ...]


def measure(path: Path, queries: Sequence[str], threads: int) -> Measured:
    """Open ``path`` read-only as the proxy does, warm up, time each mode in turn per query."""
    encoder = Encoder(threads=threads)
    encoder.encode(["warm-up"])
    base = vm_kib("VmRSS")
    store = SqliteIndex(path, encoder, readonly=True)
    retrievers = {m: HybridRetriever(store, HybridConfig(mode=m)) for m in MODES}
    for q in queries[:WARMUP_QUERIES]:  # loads the vector matrix, fills the page cache
        for m in MODES:
            retrievers[m].search_sync(q, top_k=TOP_K)
    times: dict[Mode, list[float]] = {m: [] for m in MODES}
    for i, q in enumerate(queries):
        turn = i % len(MODES)  # modes take turns, so a burst of load hits them alike
        for m in MODES[turn:] + MODES[:turn]:
            started = time.perf_counter()
            retrievers[m].search_sync(q, top_k=TOP_K)
            times[m].append((time.perf_counter() - started) * 1000)
    count = store.count()
    store.close()
    return Measured(
        count,
        len(queries),
        round(base / 1024, 1),
        round(vm_kib("VmHWM") / 1024, 1),
        tuple(ModeLatency(m.value, Latency.of(times[m])) for m in MODES),
    )


def measured_from_json(raw: dict[str, Any]) -> Measured:
    return Measured(
        int(raw["count"]),
        int(raw["queries"]),
        float(raw["base_rss_mib"]),
        float(raw["peak_rss_mib"]),
        tuple(ModeLatency(m["mode"], Latency(**m["latency"])) for m in raw["modes"]),
    )


def measure_in_subprocess(path: Path, args: argparse.Namespace) -> Measured:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--measure",
        str(path),
        "--queries",
        str(args.queries),
        "--encoder-threads",
        str(args.encoder_threads),
        "--data-dir",
        str(args.data_dir),
    ]
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return measured_from_json(json.loads(done.stdout.strip().splitlines()[-1]))


def load_queries(data: Path, count: int) -> list[str]:
    return [q.text for q in load_scifact(data, "dev")][:count]


def run_retrieval(args: argparse.Namespace) -> RetrievalResult:
    encoder = Encoder(threads=args.threads)
    sources = load_sources(args.data_dir, args.sources)
    log(f"{len(sources)} real abstracts; larger indexes are reworded copies of them")
    corpus = embed_sources(sources, encoder, CACHE / "costs-vectors")
    points = []
    for size in args.sizes:
        built = build_index(size, corpus, encoder, CACHE)
        log(f"measuring {size} abstracts: {args.queries} queries x {len(MODES)} modes")
        measured = measure_in_subprocess(built.path, args)
        points.append(IndexPoint(size, built.build_s, built.file_mb, built.reused, measured))
        log(
            f"{size} abstracts: "
            + ", ".join(f"{m.mode} p50 {m.latency.p50_ms:.1f} ms" for m in measured.modes)
            + f", peak RSS {measured.peak_rss_mib:.0f} MiB"
        )
    return RetrievalResult(len(sources), corpus.embed_s, args.encoder_threads, tuple(points))


def largest_within(
    points: Sequence[IndexPoint], mode: Mode, budget_ms: float = BUDGET_MS
) -> int | None:
    """The largest measured size whose ``mode`` p50 stays within ``budget_ms``: it and every
    smaller measured size meet the budget. None if the smallest already misses it."""
    best = None
    for point in sorted(points, key=lambda p: p.size):
        p50 = point.p50(mode)
        if p50 is None or p50 > budget_ms:
            break
        best = point.size
    return best


# --- output -----------------------------------------------------------------------------------


def report(
    args: argparse.Namespace,
    verification: VerifyResult | None,
    retrieval: RetrievalResult | None,
) -> dict[str, object]:
    out: dict[str, object] = {
        "machine": {"cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2)},
    }
    if verification is not None:
        out["verification"] = asdict(verification)
    if retrieval is not None:
        body = asdict(retrieval)
        for point in body["points"]:
            point["path"] = str(CACHE / f"costs-{point['size']}.sqlite")
        body["note"] = (
            f"indexes beyond {retrieval.real_abstracts} abstracts are reworded copies of the real "
            "abstracts (word-level rewrites, noised vectors), not real abstracts"
        )
        body["budget_ms"] = BUDGET_MS
        body["largest_within_budget"] = {
            m.value: largest_within(retrieval.points, m) for m in (Mode.DENSE, Mode.HYBRID)
        }
        out["retrieval"] = body
    return out


def sizing_line(retrieval: RetrievalResult, mode: Mode) -> str:
    size = largest_within(retrieval.points, mode)
    measured = ", ".join(str(p.size) for p in retrieval.points)
    if size is None:
        return f"no measured index keeps {mode.value} p50 <= {BUDGET_MS:g} ms (measured {measured})"
    return (
        f"largest index with {mode.value} p50 <= {BUDGET_MS:g} ms: {size} abstracts "
        f"(measured {measured})"
    )


def plot(path: Path, verification: VerifyResult | None, retrieval: RetrievalResult | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    if verification is not None:
        for abstracts in sorted({c.abstracts for c in verification.cells}):
            cells = sorted(
                (c for c in verification.cells if c.abstracts == abstracts),
                key=lambda c: c.sentences,
            )
            xs = [c.sentences for c in cells]
            left.plot(xs, [c.latency.p50_ms for c in cells], marker="o", label=f"{abstracts} abs")
    left.set(xlabel="answer sentences", ylabel="p50 ms", title="verification time")
    if retrieval is not None:
        for mode in MODES:
            points = [(p.size, p.p50(mode)) for p in retrieval.points]
            xs = [s for s, v in points if v is not None]
            ys = [v for _, v in points if v is not None]
            right.plot(xs, ys, marker="o", label=mode.value)
        right.axhline(BUDGET_MS, color="grey", linestyle="--", label=f"{BUDGET_MS:g} ms")
        right.set_xscale("log")
    right.set(
        xlabel="abstracts in index (reworded copies)",
        ylabel="p50 ms",
        title="retrieval latency, top-10",
    )
    for axes in (left, right):
        if axes.get_legend_handles_labels()[0]:
            axes.legend()
        axes.grid(True, alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- command line -----------------------------------------------------------------------------


def int_list(low: int, high: int) -> Callable[[str], tuple[int, ...]]:
    def parse(text: str) -> tuple[int, ...]:
        try:
            values = tuple(int(v) for v in text.split(",") if v.strip())
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from exc
        if not values or any(not low <= v <= high for v in values):
            raise argparse.ArgumentTypeError(f"each value must be in {low}..{high}: {text!r}")
        return tuple(sorted(set(values)))

    return parse


def bounded(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be in {low}..{high}: {text}")
        return value

    return parse


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--part", choices=("verify", "retrieval", "all"), default="all")
    parser.add_argument("--data-dir", type=Path, default=data_dir())
    parser.add_argument("--plot", default="docs/costs.png", help="PNG path; '' for none")
    parser.add_argument("--seed", type=int, default=7)
    verify = parser.add_argument_group("verification")
    verify.add_argument("--runs", type=bounded(1, 1000), default=5)
    verify.add_argument("--threads", type=bounded(1, 64), default=2, help="NLI/encoder threads")
    verify.add_argument("--sentences", type=int_list(1, MAX_GRID), default=SENTENCES)
    verify.add_argument("--evidence", type=int_list(1, MAX_GRID), default=EVIDENCE)
    verify.add_argument("--nli", default="bundled")
    verify.add_argument("--nli-model")
    retrieval = parser.add_argument_group("retrieval")
    retrieval.add_argument("--sizes", type=int_list(1, MAX_SIZE), default=SIZES)
    retrieval.add_argument("--queries", type=bounded(1, 10_000), default=200)
    retrieval.add_argument(
        "--encoder-threads", type=bounded(1, 64), default=1, help="query encoder (proxy default 1)"
    )
    retrieval.add_argument(
        "--sources", type=bounded(1, MAX_SIZE), help="use only the first N real abstracts (smoke)"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the subprocess
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.measure is not None:
        measured = measure(
            args.measure, load_queries(args.data_dir, args.queries), args.encoder_threads
        )
        print(json.dumps(asdict(measured)))
        return 0
    verification = run_verification(args) if args.part in ("verify", "all") else None
    retrieval = run_retrieval(args) if args.part in ("retrieval", "all") else None
    if retrieval is not None:
        for mode in (Mode.DENSE, Mode.HYBRID):
            log(sizing_line(retrieval, mode))
    print(json.dumps(report(args, verification, retrieval), indent=2))
    if args.plot:
        plot(Path(args.plot), verification, retrieval)
        log(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
