"""Retrieval latency and index size, for the shipped demo index and for an index of every
abstract in ../shared/data (SciFact corpus + PubMedQA + Check-COVID + the MEDLINE sample).

    python bench/retrieval.py [--data-dir ../shared/data] [--queries 300] [--threads 1]

Queries are SciFact dev claims (free-text, as users ask). The modes take turns on each query
after a warm-up; the figure is wall time per query for top-10 (query encoding included). The
combined index is built once into ~/.cache/veriproxy/bench/ (resumable) and reused. The
machine's load average is printed beside the figures: on a shared machine, queueing for a core
dominates.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from tqdm import tqdm

from proxy.data import DEMO_INDEX
from proxy.data.build_demo import pubmedqa_articles
from proxy.retrieval import HybridConfig, HybridRetriever, Mode
from proxy.retrieval.evaluation import DEFAULT_CACHE, load_scifact
from proxy.retrieval.indexing import index_paths
from proxy.retrieval.sqlite_store import SqliteIndex
from verifiers import Encoder
from verifiers.eval.data import data_dir


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    if not path.exists():
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def build_all(data_dir: Path, out_dir: Path, encoder: Encoder) -> Path:
    """Index every abstract in the shared data; JSON sources are first written as JSONL."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pubmedqa = _write_jsonl(
        out_dir / "pubmedqa.jsonl",
        [
            {"pmid": a.pmid, "title": a.title, "abstract": a.abstract, "year": a.year}
            for a in pubmedqa_articles(data_dir / "pubmedqa" / "ori_pqal.json")
        ],
    )
    with (data_dir / "check_covid" / "corpus.json").open(encoding="utf-8") as fh:
        covid_rows = [json.loads(line) for line in fh if line.strip()]
    covid = _write_jsonl(
        out_dir / "check_covid.jsonl",
        [{"id": r["cord_id"], "title": r["title"], "abstract": r["abstract"]} for r in covid_rows],
    )
    sources = [
        data_dir / "scifact" / "corpus.jsonl",
        pubmedqa,
        covid,
        data_dir / "medline_sample" / "medline16n0902.xml.gz",
    ]
    path = out_dir / "all.sqlite"
    store = SqliteIndex(path, encoder)
    with tqdm(unit="records", desc="index all") as bar:
        index_paths(sources, store, on_records=bar.update)
    store.optimize()
    store.close()
    return path


def measure(name: str, path: Path, queries: list[str], encoder: Encoder) -> None:
    store = SqliteIndex(path, encoder, readonly=True)
    size_mb = path.stat().st_size / 1e6
    print(f"\n{name}: {store.count()} abstracts, index file {size_mb:.1f} MB")
    encode_ms = []
    for q in queries:
        start = time.perf_counter()
        encoder.encode([q])
        encode_ms.append((time.perf_counter() - start) * 1000)
    print(f"query encoding alone: p50 {statistics.median(encode_ms):.1f} ms")
    modes = (Mode.BM25, Mode.DENSE, Mode.HYBRID, Mode.RRF)
    retrievers = {m: HybridRetriever(store, HybridConfig(mode=m)) for m in modes}
    for q in queries[:10]:  # warm-up: loads the vector matrix, page cache
        retrievers[Mode.HYBRID].search_sync(q, top_k=10)
    # Modes take turns query by query, so a burst of load on a shared machine hits them alike.
    times: dict[Mode, list[float]] = {m: [] for m in modes}
    for i, q in enumerate(queries):
        for m in modes[i % 4 :] + modes[: i % 4]:
            start = time.perf_counter()
            retrievers[m].search_sync(q, top_k=10)
            times[m].append((time.perf_counter() - start) * 1000)
    print("| mode | p50 ms | p99 ms | mean ms |\n|---|---|---|---|")
    for m in modes:
        t = sorted(times[m])
        p99 = t[min(len(t) - 1, round(0.99 * (len(t) - 1)))]
        print(f"| {m.value} | {statistics.median(t):.1f} | {p99:.1f} | {statistics.fmean(t):.1f} |")
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=data_dir())
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads")
    parser.add_argument("--skip-all", action="store_true", help="only the demo index")
    args = parser.parse_args()
    encoder = Encoder(threads=args.threads)
    queries = [q.text for q in load_scifact(args.data_dir, "dev")][: args.queries]
    print(
        f"{len(queries)} queries (SciFact dev claims), top-10, {args.threads} ORT threads, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    measure("demo index (PubMedQA)", DEMO_INDEX, queries, encoder)
    if not args.skip_all:
        path = build_all(args.data_dir, DEFAULT_CACHE / "bench", encoder)
        measure("all abstracts in shared/data", path, queries, encoder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
