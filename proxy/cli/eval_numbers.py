"""``veriproxy eval numbers``: the values of the held-out answers' evidence restated as answers
restate them ("about 75%", "more than 1,000 women", "three quarters of"), each through the
numbers check against its own sentence, and once more with the value doubled; the measuring is
``verifiers.eval.restated_numbers``."""

from __future__ import annotations

import argparse
import json
import sys

from proxy.cli._parser import add_eval_flags


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "numbers",
        help="evidence values restated as answers restate them (about, more than, fractions)",
    )
    add_eval_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from verifiers.eval.answers import load_items
    from verifiers.eval.restated_numbers import SHAPES, evaluate, evidence_sentences

    items = load_items(args.data_dir, "all", args.limit)
    abstracts = [ev.abstract for item in items for ev in item.evidence]
    print(f"restating the values of {len(abstracts)} held-out abstracts", file=sys.stderr)
    figures = {shape: f.as_dict() for shape, f in evaluate(evidence_sentences(abstracts)).items()}
    if args.json:
        print(json.dumps({"items": len(items), "shapes": figures}, indent=2))
        return 0
    print(f"{'shape':<12}{'restated':>10}{'passed':>10}{'doubled':>10}{'caught':>10}")
    for shape in SHAPES:
        row = figures[shape]
        passed, caught = row["passed_rate"], row["caught_rate"]
        cells = (
            row["restated"], "-" if passed is None else f"{passed:.3f}",
            row["changed"], "-" if caught is None else f"{caught:.3f}",
        )  # fmt: skip
        print(f"{shape:<12}" + "".join(f"{c:>10}" for c in cells))
    return 0
