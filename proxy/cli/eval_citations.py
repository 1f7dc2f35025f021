"""``veriproxy eval citations``: detection of fabricated citations and altered numbers; the
answers, the injected errors and the scores are ``verifiers.eval.citations``."""

from __future__ import annotations

import argparse

from proxy.cli._parser import add_data_dir


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "citations", help="detection of fabricated citations and altered numbers"
    )
    add_data_dir(parser)
    parser.add_argument("--seed", type=int, default=13, help="shuffling and injected errors")
    parser.add_argument("--limit", type=int, help="at most N answers")
    parser.add_argument("--nli", default="bundled", help="NLI backend: bundled, hf or llm")
    parser.add_argument("--nli-model", help="model path/name for the hf and llm backends")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from verifiers.config import verifier_config
    from verifiers.engine import Verifier
    from verifiers.eval.citations import CLAIMS_PER_ANSWER, build_answers, evaluate, load_supported

    nli: dict[str, object] = {"name": args.nli}
    if args.nli_model:
        nli["model"] = args.nli_model
    if args.nli in ("bundled", "hf"):
        nli["threads"] = args.threads
    verifier = Verifier.from_config(verifier_config({"nli": nli}))
    pairs, docs = load_supported(args.data_dir)
    answers = list(build_answers(pairs, docs, args.seed))[: args.limit]
    progress = tqdm(answers, desc="answers", unit="answer")
    scores, skipped = evaluate(verifier.verify, progress, args.seed)
    print(f"{len(answers)} answers of {CLAIMS_PER_ANSWER} sentences, seed {args.seed}, ", end="")
    print(f"{skipped} skipped (a claim split into several sentences)")
    for name, value in scores.items():
        print(value.line(name))
    return 0
