"""``veriproxy eval answers``: answer-level quality through the real ``Verifier``.

Correct cited answers (BioASQ ideal answers, PubMedQA long answers; questions never trained on)
are verified as written and with one sentence perturbed per kind (changed number, number word,
swapped direction, negation, quantifier, overstated hedge, reversed comparison, swapped entity,
another value of the evidence's sentence). See ``verifiers.eval.answers``.
``--quotes`` verifies each answer a second time with quoted citations and prints both side by
side, misquotes included (``proxy.cli.eval_answers_quotes``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from proxy.cli._judge import add_judge_options, judge_cascade
from proxy.cli._parser import add_data_dir


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "answers",
        help="whole cited answers: supported rate, false alarms, perturbations caught",
    )
    add_data_dir(parser)
    parser.add_argument(
        "--source", choices=("all", "bioasq", "pubmedqa"), default="all", help="item source"
    )
    parser.add_argument("--model-dir", type=Path, default=None, help="NLI model (bundled if unset)")
    parser.add_argument("--limit", type=int, default=None, help="first N items of each source")
    parser.add_argument("--seed", type=int, default=13, help="perturbation choices")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--quotes",
        action="store_true",
        help='also verify each answer with quoted citations ([PMID:123 "words"]) and '
        "misquotes, side by side with the plain answers, NLI pairs per sentence included",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=0,
        help="with --quotes: print up to N missed sentences of each kind (at most 5)",
    )
    add_judge_options(parser)
    parser.set_defaults(func=run)


def progress_printer(started: float, what: str = "answers") -> Callable[[int, int], None]:
    """Progress on stderr every 25 items and at the end, with the seconds so far."""

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            seconds = time.monotonic() - started
            print(f"  {done}/{total} {what} ({seconds:.0f} s)", file=sys.stderr)

    return progress


def run(args: argparse.Namespace) -> int:
    from verifiers.config import verifier_config
    from verifiers.engine import Verifier
    from verifiers.eval.answers import PERTURBATIONS, evaluate, load_items
    from verifiers.eval.off_topic import off_topic
    from verifiers.judge.offline import verify_with_judge

    nli: dict[str, object] = {"name": "bundled"}
    if args.model_dir is not None:
        nli["model_dir"] = str(args.model_dir)
    verifier = Verifier.from_config(verifier_config({"nli": nli}))
    items = load_items(args.data_dir, args.source, args.limit)
    asides = off_topic(items, args.data_dir)
    if not any(s.kind == "everyday" for aside in asides for s in aside):
        print(
            f"no SNLI test split under {args.data_dir}: no everyday sentences are appended",
            file=sys.stderr,
        )
    cascade = judge_cascade(args, verifier.selector, verifier.nli)
    verify = verifier.verify if cascade is None else partial(verify_with_judge, verifier, cascade)
    if args.quotes:
        from proxy.cli.eval_answers_quotes import run_quotes

        return run_quotes(args, verifier, verify, items, asides)
    print(
        f"verifying {len(items)} answers, each also once per perturbation kind and once with "
        "off-topic sentences appended",
        file=sys.stderr,
    )
    started = time.monotonic()
    progress = progress_printer(started)
    result = evaluate(verify, items, args.seed, progress, asides).as_dict()
    result |= {
        "items": len(items),
        "source": args.source,
        "model": verifier.nli.version,
        "judge": args.judge,
        "seconds": round(time.monotonic() - started, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    judge = f", judge {args.judge} below confidence {args.escalate_below:g}" if args.judge else ""
    print(f"answers: {len(items)} items ({args.source}), model {result['model']}{judge}")
    print(
        f"correct sentences: {result['correct_sentences']}, "
        f"supported {result['supported_rate']:.3f}, "
        f"falsely contradicted {result['false_contradicted_rate']:.3f}"
    )
    print(
        f"  with needs_review: supported or marked {result['supported_or_review_rate']:.3f}, "
        f"falsely contradicted and unmarked {result['false_contradicted_unmarked_rate']:.3f}, "
        f"marked {result['marked_rate']:.3f}"
    )
    selective: dict[str, Any] = result["selective"]  # type: ignore[assignment]
    capture = ", ".join(f"{k} {v:.2f}" for k, v in selective["error_capture"].items())
    print(
        f"  confidence: error capture {capture}; AURC {selective['aurc']:.3f}; "
        f"ECE {selective['ece']:.3f}"
    )
    for name in ("false_contradicted_by", "not_supported_by"):
        causes: dict[str, int] = result[name]  # type: ignore[assignment]
        shown = ", ".join(f"{cause} {count}" for cause, count in causes.items())
        print(f"  {name.replace('_', ' ')}: {shown or 'none'}")
    print(
        f"{'perturbation':<14}{'sentences':>10}{'caught':>8}{'or marked':>11}"
        f"{'of supported':>14}{'caught':>8}"
    )
    perturbed: dict[str, dict[str, float]] = result["perturbed"]  # type: ignore[assignment]
    for kind in PERTURBATIONS:
        row = perturbed[kind]
        print(
            f"{kind:<14}{row['sentences']:>10}{row['caught']:>8.3f}{row['caught_or_review']:>11.3f}"
            f"{row['of_supported']:>14}{row['caught_of_supported']:>8.3f}"
        )
    off_topic_rows: dict[str, Any] = result["off_topic"]  # type: ignore[assignment]
    print_off_topic([off_topic_rows], [""])
    return 0


def print_off_topic(columns: Sequence[Mapping[str, Any]], names: Sequence[str]) -> None:
    """The off-topic uncited sentences called contradicted (should be none), one column per
    rendering: 'contradicted of checked (unmarked)'."""
    print("off-topic uncited sentences called contradicted (right verdict: uncited):")
    header = "".join(f"{name:>24}" for name in names)
    if header.strip():
        print(f"{'':<36}{header}")
    for kind in columns[0]:
        cells = [
            f"{c[kind]['contradicted']} of {c[kind]['checked']} "
            f"({c[kind]['contradicted_unmarked']})"
            for c in columns
        ]
        label = f"  {kind} ({columns[0][kind]['sentences']} appended)"
        print(f"{label:<36}" + "".join(f"{cell:>24}" for cell in cells))
