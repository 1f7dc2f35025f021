"""``veriproxy eval segmentation``: sentence-boundary precision, recall and F1 on SciFact
against plain pysbd; the measuring is ``verifiers.eval.segmentation``."""

from __future__ import annotations

import argparse

from proxy.cli._parser import add_data_dir


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("segmentation", help="sentence boundary F1 on SciFact abstracts")
    add_data_dir(parser)
    parser.add_argument("--limit", type=int, help="only the first N abstracts")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from verifiers.eval.segmentation import abstracts, evaluate

    read = tqdm(abstracts(args.data_dir, args.limit), desc="abstracts", unit="doc")
    count, tallies = evaluate(read)
    boundaries = tallies["veriproxy"].true_pos + tallies["veriproxy"].false_neg
    print(f"SciFact corpus: {count} abstracts, {boundaries} gold boundaries")
    for name, tally in tallies.items():
        print(tally.line(name))
    return 0
