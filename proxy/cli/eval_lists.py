"""``veriproxy eval lists``: the held-out BioASQ list questions answered as a label and one
name per line (each cited, or the list cited once at its end), as written and with one name
swapped; the measuring is ``verifiers.eval.lists``."""

from __future__ import annotations

import argparse
import json
import sys
import time

from proxy.cli._parser import add_eval_flags


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "lists", help="answers written as a list of cited bare names, and one name swapped"
    )
    add_eval_flags(parser, "first N list answers")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proxy.cli.eval_answers import progress_printer
    from verifiers.config import verifier_config
    from verifiers.engine import Verifier
    from verifiers.eval.lists import RENDERINGS, evaluate_lists, load_list_items

    verifier = Verifier.from_config(verifier_config({"nli": {"name": "bundled"}}))
    items = load_list_items(args.data_dir, args.limit)
    print(f"verifying {len(items)} list answers, as written and with one name swapped, "
          f"in {len(RENDERINGS)} renderings", file=sys.stderr)  # fmt: skip
    results = {
        name: evaluate_lists(
            verifier.verify, items, progress_printer(time.monotonic()), rendering=name
        ).as_dict()
        for name in RENDERINGS
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, result in results.items():
        print(f"{name}: list answers {result['answers']}, model {verifier.nli.version}")
        print(
            f"  correct names {result['correct_names']}: flagged {result['correct_flagged']} "
            f"({result['correct_flagged_rate']:.3f}), supported {result['correct_supported']}, "
            f"not_checkworthy {result['correct_not_checkworthy']}"
        )
        print(
            f"  swapped names {result['swapped_names']}: caught {result['swapped_caught']} "
            f"({result['swapped_caught_rate']:.3f}), not_checkworthy "
            f"{result['swapped_not_checkworthy']}"
        )
        print(f"  verdicts of the correct names: {result['correct_verdicts']}")
        print(f"  verdicts of the swapped names: {result['swapped_verdicts']}")
    return 0
