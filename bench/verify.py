"""Verification latency: a 5-sentence answer against 10 abstracts, p50 / p99 and sentences/s.

Answers are five SciFact dev claims, each citing its abstract; the evidence is those abstracts
plus unrelated ones up to ten. Every run builds a fresh answer and a fresh window cache (no
embedding reuse across runs), as a proxy request with new evidence would see it.

    python bench/verify.py                     # bundled NLI model, 2 threads
    python bench/verify.py --embed             # add the embedding rerank of windows
    python bench/verify.py --no-abbreviations  # without scispaCy's abbreviation detector
    python bench/verify.py --nli hf --nli-model PATH
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from verifiers.embed import Encoder
from verifiers.engine import Verifier
from verifiers.eval.citations import load_supported
from verifiers.eval.data import data_dir
from verifiers.nli.registry import create_backend
from verifiers.windows import WindowSelector

SENTENCES = 5
ABSTRACTS = 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=data_dir())
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--nli", default="bundled")
    parser.add_argument("--nli-model")
    parser.add_argument("--embed", action="store_true", help="embedding rerank of windows too")
    parser.add_argument("--no-abbreviations", action="store_true", help="skip scispaCy's detector")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    options: dict[str, object] = {"threads": args.threads}
    if args.nli_model:
        options["model"] = args.nli_model
    nli = create_backend(args.nli, **options)
    encoder = Encoder(threads=args.threads) if args.embed else None
    sizes = getattr(getattr(nli, "config", None), "window_sizes", None)
    max_sentences = max(sizes) if sizes else 3  # as Verifier.from_config sizes them
    pairs, docs = load_supported(args.data_dir)
    rng = random.Random(args.seed)
    ids = sorted(docs)
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    # Built once, as the proxy builds it: its abbreviation cache is per abstract, and each run
    # draws new abstracts, so the detector's cost on fresh abstracts is still measured.
    selector = WindowSelector(
        encoder, max_sentences=max_sentences, abbreviations=not args.no_abbreviations
    )
    verifier = Verifier(nli, selector=selector)
    for run in range(args.warmup + args.runs):
        chosen = rng.sample(pairs, SENTENCES)
        cited = list(dict.fromkeys(p for _, p in chosen))
        others = [d for d in rng.sample(ids, ABSTRACTS + len(cited)) if d not in cited]
        evidence = [docs[d] for d in (cited + others)[:ABSTRACTS]]
        answer = " ".join(f"{c.rstrip('. ')} [PMID:{p}]." for c, p in chosen)
        started = time.perf_counter()
        report = verifier.verify(answer, evidence)
        elapsed = (time.perf_counter() - started) * 1000
        if run < args.warmup:
            continue
        totals.append(elapsed)
        for stage, ms in report.latency_ms.items():
            stages.setdefault(stage, []).append(ms)
        print(f"run {run - args.warmup + 1}/{args.runs}: {elapsed:.0f} ms", file=sys.stderr)

    totals.sort()
    p50 = statistics.median(totals)
    p99 = totals[min(len(totals) - 1, round(0.99 * (len(totals) - 1)))]
    print(
        f"backend {nli.version}, threads {args.threads}, embed prefilter {encoder is not None}, "
        f"abbreviations {not args.no_abbreviations}"
    )
    print(f"{SENTENCES}-sentence answer vs {ABSTRACTS} abstracts, {args.runs} runs")
    print(f"latency p50 {p50:.0f} ms  p99 {p99:.0f} ms  mean {statistics.mean(totals):.0f} ms")
    print(f"throughput {SENTENCES * 1000 / statistics.mean(totals):.1f} sentences/s (one stream)")
    print(
        "stage p50 (ms): " + ", ".join(f"{k} {statistics.median(v):.0f}" for k, v in stages.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
