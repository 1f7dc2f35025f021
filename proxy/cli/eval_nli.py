"""``veriproxy eval nli``: claim-level quality of an NLI model on SciFact dev, HealthVer or
Check-COVID dev (claim vs whole abstract, decided through windows with the OR-join)."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path

from proxy.cli._parser import add_data_dir


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("nli", help="NLI verdicts vs gold labels")
    parser.add_argument(
        "--dataset",
        choices=("scifact", "healthver", "checkcovid"),
        required=True,
        help="benchmark to score (SciFact and Check-COVID: dev split)",
    )
    add_data_dir(parser)
    parser.add_argument("--model-dir", type=Path, default=None, help="default: bundled model")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.add_argument("--limit", type=int, default=None, help="first N items only")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--record", action="store_true", help="store in the model card")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from verifiers.nli.bundled import BundledNLI
    from verifiers.training import benchmarks, card
    from verifiers.training.evaluate import CLASS_NAMES, decide_all, metrics, score_items

    backend = BundledNLI(args.model_dir, threads=args.threads)
    items = benchmarks.DATASETS[args.dataset](args.data_dir)[: args.limit]
    started = time.monotonic()
    scored = score_items(backend, items, backend.config.window_sizes)
    predicted = decide_all(scored, backend.thresholds)
    result = asdict(metrics([i.label for i in items], predicted)) | {
        "dataset": args.dataset,
        "items": len(items),
        "pairs": sum(map(len, scored)),
        "model": backend.version,
        "thresholds": asdict(backend.thresholds),
        "seconds": round(time.monotonic() - started, 1),
    }
    if args.record:
        card.record(backend.model_dir, args.dataset, result)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.dataset}: {len(items)} items, {result['pairs']} pairs, model {backend.version}")
    print(f"macro-F1 {result['macro_f1']:.3f}  accuracy {result['accuracy']:.3f}")
    print(f"{'class':<22}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>9}")
    for name in CLASS_NAMES:
        c = result["per_class"][name]
        print(
            f"{name:<22}{c['precision']:>10.3f}{c['recall']:>10.3f}{c['f1']:>10.3f}{c['support']:>9}"
        )
    print("confusion (rows gold, columns predicted):", ", ".join(CLASS_NAMES))
    for name, row in zip(CLASS_NAMES, result["confusion"], strict=True):
        print(f"  {name:<22}" + "".join(f"{v:>8}" for v in row))
    return 0
