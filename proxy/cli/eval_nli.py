"""``veriproxy eval nli``: claim-level quality on SciFact dev, HealthVer or Check-COVID dev
(claim vs its abstract), through the engine as the proxy judges a claim (default) or through
the model and its decision rule alone (``--model-only``); the measuring is
``verifiers.eval.nli``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proxy.cli._judge import add_judge_options, judge_cascade
from proxy.cli._parser import add_data_dir

if TYPE_CHECKING:
    from verifiers.engine import Verifier
    from verifiers.nli import NLIBackend
    from verifiers.nli.decide import Decision
    from verifiers.training.benchmarks import AbstractItem
    from verifiers.training.coverage import CoverageRow


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("nli", help="NLI verdicts vs gold labels")
    scored = parser.add_mutually_exclusive_group(required=True)
    scored.add_argument(
        "--dataset",
        choices=("scifact", "healthver", "checkcovid"),
        help="benchmark to score (SciFact and Check-COVID: dev split)",
    )
    scored.add_argument(
        "--reviews",
        type=Path,
        action=_Reviews,
        metavar="FILE",
        help="score reviewers' labels on live traffic instead (veriproxy review export)",
    )
    add_data_dir(parser)
    parser.add_argument("--model-dir", type=Path, default=None, help="default: bundled model")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.add_argument("--limit", type=int, default=None, help="first N items only")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--model-only",
        action="store_true",
        help="score the model and its decision rule over every window of the abstract (the "
        "model card's figure) instead of the engine's verdicts",
    )
    parser.add_argument(
        "--record", action="store_true", help="store in the model card (with --model-only)"
    )
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="also score the claims kept when the least confident 10/20/30/50%% are escalated, "
        "the error capture, AURC, calibration and (engine) the needs-review figures",
    )
    add_judge_options(parser)
    parser.set_defaults(func=run)


class _Reviews(argparse.Action):
    """``--reviews FILE`` also names the scored set ``reviews`` (the output's dataset)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        namespace.reviews = values
        namespace.dataset = "reviews"


def _items(args: argparse.Namespace) -> list[AbstractItem]:
    from verifiers.training import benchmarks
    from verifiers.training.reviews import review_items

    if args.dataset == "reviews":
        return review_items(args.reviews)
    return benchmarks.DATASETS[args.dataset](args.data_dir)


def run(args: argparse.Namespace) -> int:
    from verifiers.eval.nli import evaluate, evaluate_engine, selective
    from verifiers.nli.bundled import BundledNLI
    from verifiers.training import card
    from verifiers.training.coverage import coverage_table
    from verifiers.training.evaluate import CLASS_NAMES, label_ids, metrics

    if args.record and not args.model_only:
        print("veriproxy eval nli: --record needs --model-only", file=sys.stderr)
        return 2
    items = _items(args)[: args.limit]
    needs_review: list[bool] | None = None
    if args.model_only:
        backend = BundledNLI(args.model_dir, threads=args.threads)
        nli: NLIBackend = backend
        result, decisions = evaluate(backend, args.dataset, items)
    else:
        verifier = _verifier(args)
        nli = verifier.nli
        result, decisions, judged = evaluate_engine(
            verifier, args.dataset, items, progress=_progress("judged")
        )
        needs_review = [j.needs_review for j in judged]
    if args.record:
        card.record(backend.model_dir, args.dataset, result)
    # After --record, which stores the plain metrics only.
    gold = [i.label for i in items]
    extra: dict[str, Any] = {}
    rows = coverage_table(gold, decisions) if args.coverage else []
    if args.coverage:
        extra["coverage"] = [asdict(row) for row in rows]
        extra["selective"] = selective(
            gold, label_ids(decisions), [d.confidence for d in decisions], needs_review
        )
    judged_ids = _with_judge(args, nli, items, decisions)
    if judged_ids is not None:
        extra["judge"] = (
            asdict(metrics(gold, judged_ids))
            | {"model": args.judge}
            | _sent(gold, label_ids(decisions), decisions, args.escalate_below)
        )
    if args.json:
        print(json.dumps(result | extra, indent=2))
        return 0
    print(
        f"{args.dataset}: {len(items)} items, {result['pairs']} pairs, model {nli.version} "
        f"({result['path']} path)"
    )
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
    if args.coverage:
        _print_coverage(rows)
        _print_selective(extra["selective"])
    if "judge" in extra:
        judge = extra["judge"]
        print(
            f"with the judge {args.judge} on claims below confidence {args.escalate_below:g}: "
            f"macro-F1 {judge['macro_f1']:.3f}  accuracy {judge['accuracy']:.3f}  "
            f"contradicted F1 {judge['per_class']['contradicted']['f1']:.3f}"
        )
        print(
            f"  sent {judge['sent']} claims, {judge['sent_wrong']} of them wrong before the "
            f"judge ({judge['errors_sent_share']:.0%} of all wrong verdicts)"
        )
    return 0


def _print_coverage(rows: list[CoverageRow]) -> None:
    print("coverage (least confident claims escalated; metrics of the kept claims):")
    print(
        f"{'escalated':>16}{'confidence below':>18}{'kept':>13}"
        f"{'accuracy':>10}{'macro-F1':>10}{'contra-F1':>11}"
    )
    for r in rows:
        threshold = "-" if r.threshold is None else f"{r.threshold:.4f}"
        escalated = f"{r.escalated_fraction:.0%} {r.escalated:>5}"
        print(
            f"{escalated:>16}{threshold:>18}{f'{r.kept}/{r.total}':>13}"
            f"{r.accuracy:>10.3f}{r.macro_f1:>10.3f}{r.contradicted_f1:>11.3f}"
        )


def _print_selective(figures: dict[str, Any]) -> None:
    capture = figures["error_capture"]
    ceiling = figures["capture_ceiling"]
    print(
        "error capture (share of all wrong verdicts among the least confident claims): "
        + ", ".join(f"{k} {v:.2f} (ceiling {ceiling[k]:.2f})" for k, v in capture.items())
    )
    print(f"risk-coverage area (AURC) {figures['aurc']:.3f}; ECE {figures['ece']:.3f}")
    print(f"{'confidence':>14}{'claims':>8}{'mean':>8}{'right':>8}")
    for row in figures["reliability"]:
        print(
            f"{row['low']:>6.1f}-{row['high']:<6.1f}{row['claims']:>8}"
            f"{row['mean_confidence']:>8.3f}{row['accuracy']:>8.3f}"
        )
    review = figures.get("needs_review")
    if review is not None:
        print(
            f"needs review: {review['marked']} claims ({review['marked_share']:.1%}); kept "
            f"claims right {review['kept_accuracy']:.3f}; kept supported {review['kept_supported']}"
            f" at precision {review['kept_supported_precision']:.3f}; gold-supported claims kept "
            f"as supported {review['supported_recall_kept']:.3f}"
        )


def _sent(
    gold: Sequence[int], predicted: Sequence[int], decisions: Sequence[Decision], below: float
) -> dict[str, Any]:
    """Which claims the cascade's rule sent: how many, how many of them the bundled model had
    wrong, and what share of all its wrong verdicts that is."""
    sent = [i for i, d in enumerate(decisions) if d.confidence < below]
    wrong = sum(gold[i] != predicted[i] for i in sent)
    errors = sum(g != p for g, p in zip(gold, predicted, strict=True))
    return {
        "sent": len(sent),
        "sent_wrong": wrong,
        "errors_sent_share": round(wrong / errors, 4) if errors else 0.0,
    }


def _verifier(args: argparse.Namespace) -> Verifier:
    from verifiers.config import verifier_config
    from verifiers.engine import Verifier

    nli: dict[str, Any] = {"name": "bundled", "threads": args.threads}
    if args.model_dir is not None:
        nli["model_dir"] = str(args.model_dir)
    return Verifier.from_config(verifier_config({"nli": nli}))


def _progress(what: str) -> Callable[[int, int], None]:
    def progress(done: int, total: int) -> None:
        if done % 256 == 0 or done == total:
            print(f"  {what} {done}/{total} claims", file=sys.stderr, flush=True)

    return progress


def _with_judge(
    args: argparse.Namespace,
    nli: NLIBackend,
    items: Sequence[AbstractItem],
    decisions: Sequence[Decision],
) -> list[int] | None:
    """Class ids after the cascade (``--judge``); None without it."""
    from verifiers.eval.nli import judged_labels
    from verifiers.windows import WindowSelector

    cascade = judge_cascade(args, WindowSelector(max_sentences=2), nli)
    if cascade is None:
        return None
    return judged_labels(cascade, items, decisions, nli.version, _progress("judge:"))
