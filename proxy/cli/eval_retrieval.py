"""``veriproxy eval retrieval``: nDCG@10 and Recall@10 of BM25, dense, hybrid and RRF retrieval.

SciFact (BEIR's set-up): the claims of a split are the queries, the 5,183-abstract corpus is
indexed into a SQLite index (built once, then reused), the cited documents are relevant.
``--split dev`` is BEIR's SciFact test set; tune on ``--split train`` (``--sweep`` prints
nDCG@10 for a range of lexical weights). The measuring is ``proxy.retrieval.evaluation``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from proxy.cli._parser import CliError, add_data_dir
from proxy.cli.index import removed_unless_written
from proxy.retrieval.evaluation import DEFAULT_CACHE, K, compare, load_scifact, search, sweep
from proxy.retrieval.fusion import DEFAULT_ALPHA
from proxy.retrieval.hybrid import DEFAULT_CANDIDATES


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
    searching = tqdm(queries, desc=f"search {args.split}", unit="query")
    runs = search(store, searching, args.candidates)
    store.close()
    print(f"\nSciFact {args.split}: {len(queries)} claims, {len(runs)} searched; k={K}")
    if args.sweep:
        print("| alpha (lexical) | nDCG@10 | Recall@10 |\n|---|---|---|")
        for alpha, (ndcg, recall) in sweep(runs, queries).items():
            print(f"| {alpha:.1f} | {ndcg:.3f} | {recall:.3f} |")
        return 0
    print("| retriever | nDCG@10 | Recall@10 |\n|---|---|---|")
    for name, (ndcg, recall) in compare(runs, queries, args.alpha).items():
        print(f"| {name} | {ndcg:.3f} | {recall:.3f} |")
    return 0
