"""``veriproxy eval TARGET``: quality figures on the public datasets in ../shared/data.

Each target lives in its own module ``proxy.cli.eval_<target>`` exposing ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import importlib

EVAL_TARGETS: tuple[str, ...] = ("nli", "answers", "retrieval", "segmentation", "citations", "harm")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("eval", help="measure quality on public datasets")
    targets = parser.add_subparsers(
        dest="target", required=True, metavar="TARGET", help="what to measure"
    )
    for name in EVAL_TARGETS:
        importlib.import_module(f"proxy.cli.eval_{name}").register(targets)
