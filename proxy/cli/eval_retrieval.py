"""``veriproxy eval retrieval``: nDCG@10 and Recall@10 of BM25, dense, hybrid and RRF retrieval.

SciFact (BEIR's set-up): the claims of a split are the queries, the 5,183-abstract corpus is
indexed into a SQLite index (built once, then reused), the cited documents are relevant.
``--split dev`` is BEIR's SciFact test set; tune on ``--split train`` (``--sweep`` prints
nDCG@10 for a range of lexical weights).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from proxy.cli._parser import CliError, add_data_dir
from proxy.cli.index import removed_unless_written
from proxy.retrieval.fusion import DEFAULT_ALPHA, rrf_fusion, weighted_fusion
from proxy.retrieval.hybrid import DEFAULT_CANDIDATES
from proxy.retrieval.metrics import ndcg_at_k, recall_at_k

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "veriproxy"
K = 10


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    relevant: frozenset[str]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("retrieval", help="nDCG@10 / Recall@10 of the retrievers (SciFact)")
    parser.add_argument("--dataset", choices=["scifact"], default="scifact", help="benchmark")
    add_data_dir(parser)
    parser.add_argument(
        "--split", choices=["dev", "train"], default="dev", help="queries (dev: BEIR's test set)"
    )
    parser.add_argument(
        "--index",
        type=Path,
        help="index file (default: built once into "
        + str(DEFAULT_CACHE / "eval" / "scifact.sqlite").replace("%", "%%")
        + ")",
    )
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help="lexical weight")
    parser.add_argument(
        "--candidates", type=int, default=DEFAULT_CANDIDATES, help="hits per retriever to fuse"
    )
    parser.add_argument("--sweep", action="store_true", help="nDCG@10 for alpha 0.0 … 1.0")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.set_defaults(func=run)


def load_scifact(data_dir: Path, split: str) -> list[Query]:
    path = data_dir / "scifact" / f"claims_{split}.jsonl"
    with path.open(encoding="utf-8") as fh:
        claims = [json.loads(line) for line in fh if line.strip()]
    return [
        Query(c["claim"], frozenset(str(d) for d in c["cited_doc_ids"]))
        for c in claims
        if c["cited_doc_ids"]
    ]


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from proxy.retrieval.indexing import index_paths
    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers import Encoder

    corpus = args.data_dir / "scifact" / "corpus.jsonl"
    queries = load_scifact(args.data_dir, args.split)  # a missing dataset fails before indexing
    if not corpus.is_file():
        raise CliError(f"{corpus}: no such file (the SciFact corpus)")
    index_path = args.index or DEFAULT_CACHE / "eval" / "scifact.sqlite"
    with removed_unless_written(index_path) as written:
        store = SqliteIndex(index_path, Encoder(threads=args.threads))
        print(f"indexing {corpus} into {index_path} (skipped when already built)", flush=True)
        try:
            with tqdm(unit="abstracts", desc="index") as bar:

                def progress(records: int) -> None:
                    written.records += records
                    bar.update(records)

                index_paths([corpus], store, on_records=progress)
        except BaseException:
            store.close()
            raise
    n = args.candidates
    runs: list[tuple[dict[str, float], dict[str, float]]] = [
        (store.lexical(q.text, n), store.semantic(q.text, n))
        for q in tqdm(queries, desc=f"search {args.split}", unit="query")
    ]
    store.close()

    def evaluate(
        fuse: Callable[[dict[str, float], dict[str, float]], list[str]],
    ) -> tuple[float, float]:
        ranked = [fuse(lex, sem) for lex, sem in runs]
        return (
            mean(ndcg_at_k(r, q.relevant, K) for r, q in zip(ranked, queries, strict=True)),
            mean(recall_at_k(r, q.relevant, K) for r, q in zip(ranked, queries, strict=True)),
        )

    def hybrid(alpha: float) -> Callable[[dict[str, float], dict[str, float]], list[str]]:
        return lambda lex, sem: [
            f.doc_id for f in weighted_fusion(lex, sem, alpha=alpha, beta=1 - alpha, top_k=K)
        ]

    print(f"\nSciFact {args.split}: {len(queries)} claims, {len(runs)} searched; k={K}")
    if args.sweep:
        print("| alpha (lexical) | nDCG@10 | Recall@10 |\n|---|---|---|")
        for step in range(11):
            ndcg, recall = evaluate(hybrid(step / 10))
            print(f"| {step / 10:.1f} | {ndcg:.3f} | {recall:.3f} |")
        return 0
    rows = {
        "BM25 (FTS5)": evaluate(lambda lex, sem: _ranked(lex)),
        "dense (MiniLM int8)": evaluate(lambda lex, sem: _ranked(sem)),
        f"hybrid alpha={args.alpha:.2f}/beta={1 - args.alpha:.2f}": evaluate(hybrid(args.alpha)),
        "RRF (k=60)": evaluate(
            lambda lex, sem: [f.doc_id for f in rrf_fusion(_ranked(lex), _ranked(sem), top_k=K)]
        ),
    }
    print("| retriever | nDCG@10 | Recall@10 |\n|---|---|---|")
    for name, (ndcg, recall) in rows.items():
        print(f"| {name} | {ndcg:.3f} | {recall:.3f} |")
    return 0


def _ranked(scores: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
