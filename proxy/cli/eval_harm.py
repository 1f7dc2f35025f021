"""``veriproxy eval harm``: how the harm scorer spreads real claims over levels 1-5.

No public dataset has harm labels, so this is a sanity check, not an accuracy figure: it prints
the level distribution on SciFact, Check-COVID, PubMedQA and HealthVer claims, and with
``--samples N`` shows N random claims per level with their reasons, for a reader to judge.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from proxy.cli._parser import add_data_dir
from verifiers.eval.harm import DATASETS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("harm", help="harm-level distribution on real claims (no labels)")
    add_data_dir(parser)
    parser.add_argument(
        "--dataset",
        choices=sorted(DATASETS),
        action="append",
        help="dataset to score (repeat for several; default: all)",
    )
    parser.add_argument(
        "--samples", type=int, default=0, metavar="N", help="show N random claims per level"
    )
    parser.add_argument("--seed", type=int, default=0, help="which claims --samples shows")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from verifiers.harm import RuleHarmScorer

    scorer = RuleHarmScorer()
    rng = random.Random(args.seed)
    print(f"scorer {scorer.version}; levels 1..5")
    for name in args.dataset or list(DATASETS):
        claims = DATASETS[name](args.data_dir)
        scored = [
            (scorer.score(text), text)
            for text in tqdm(claims, desc=name, unit="claim", leave=False)
        ]
        counts = Counter(assessment.level for assessment, _ in scored)
        row = "  ".join(f"{level}: {counts[level]:>4}" for level in range(1, 6))
        print(f"{name:<12} {len(claims):>5} claims  {row}")
        for level in range(1, 6) if args.samples else ():
            pool = [(a, t) for a, t in scored if a.level == level]
            for assessment, text in rng.sample(pool, min(args.samples, len(pool))):
                print(f"  [{level}] {text[:120]}  <- {'; '.join(assessment.reasons)}")
    return 0
