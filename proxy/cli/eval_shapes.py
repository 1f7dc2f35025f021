"""``veriproxy eval shapes``: the held-out answers written as LLMs write them (bullets, bold,
a heading, citations after the full stop, lead-ins), each verified once per shape; the
measuring is ``verifiers.eval.shapes``."""

from __future__ import annotations

import argparse
import json
import sys
import time

from proxy.cli._parser import add_eval_flags


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "shapes",
        help="the same answers as bullets, in bold, under a heading, cited after the full stop...",
    )
    add_eval_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proxy.cli.eval_answers import progress_printer
    from verifiers.config import verifier_config
    from verifiers.engine import Verifier
    from verifiers.eval.answers import load_items
    from verifiers.eval.shapes import SHAPES, compare_shapes

    verifier = Verifier.from_config(verifier_config({"nli": {"name": "bundled"}}))
    items = load_items(args.data_dir, "all", args.limit)
    print(f"verifying {len(items)} answers in {len(SHAPES)} shapes each", file=sys.stderr)
    result = compare_shapes(verifier.verify, items, progress_printer(time.monotonic())).as_dict()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"answers: {result['items']} items, model {verifier.nli.version}")
    header = ("shape", "sentences", "supported", "unjudged", "uncited", "differ", "labels judged")
    print(f"{header[0]:<26}" + "".join(f"{h:>15}" for h in header[1:]))
    for name in SHAPES:
        row = result[name]
        assert isinstance(row, dict)
        labels = f"{row['label_lines_judged']}/{row['label_lines']}"
        cells = (
            row["sentences"], f"{row['supported_rate']:.3f}", row["unjudged"], row["uncited"],
            row["differs_from_plain"], labels,
        )  # fmt: skip
        print(f"{name:<26}" + "".join(f"{c:>15}" for c in cells))
    return 0
