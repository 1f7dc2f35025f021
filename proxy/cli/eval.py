"""``veriproxy eval TARGET``: quality figures on the public datasets (``--data-dir``, see
``verifiers.eval.data``).

Each target's command line lives in its own module ``proxy.cli.eval_<target>`` exposing
``register(subparsers)``; what it measures lives in ``verifiers.eval`` (retrieval, which needs
the proxy's retrievers, in ``proxy.retrieval.evaluation``).
"""

from __future__ import annotations

import argparse
import importlib

EVAL_TARGETS: tuple[str, ...] = (
    "nli", "answers", "shapes", "lists", "numbers", "retrieval", "segmentation", "citations",
    "harm",
)  # fmt: skip


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("eval", help="measure quality on public datasets")
    targets = parser.add_subparsers(
        dest="target", required=True, metavar="TARGET", help="what to measure"
    )
    for name in EVAL_TARGETS:
        importlib.import_module(f"proxy.cli.eval_{name}").register(targets)
