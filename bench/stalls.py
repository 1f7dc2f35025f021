"""A real-text sweep over every entry point, and /healthz latency while the heaviest requests run.

Starts the emulator and a proxy with verification on (the bundled model unless ``--nli-model``)
and retrieval off (client documents are the evidence, so every text also goes through the
evidence path), then:

1. sweep: each text from every corpus under ``../shared/data`` (see ``bench/realtext.py``) goes
   through ``POST /v1/chat/completions`` (as the prompt, with the next text as a client
   document), the same streamed, and ``POST /v1/verify`` (as the answer, the next text as
   evidence); counts answers >= 500 and streams carrying an error event;
2. stalls: samples ``GET /healthz`` every 50 ms while (a) a ``/v1/verify`` with 100 abstracts of
   9.5 KB and a 2,000-sentence answer and (b) a chat with 50 client documents of 20 KB run;
   prints p50 / max latency.

    python bench/stalls.py                     # 10 texts per corpus
    python bench/stalls.py --per-corpus 50
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realtext import DEFAULT_DATA_DIR, real_texts

from proxy.app import create_app
from proxy.config import settings_from_mapping
from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import ServerThread


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--per-corpus", type=int, default=10)
    parser.add_argument("--nli-model", help="a Hugging Face NLI model dir instead of the bundled")
    args = parser.parse_args()
    corpora = real_texts(args.data_dir, per_corpus=args.per_corpus)
    if not corpora:
        print(f"no data under {args.data_dir}", file=sys.stderr)
        return 1
    nli = {"name": "hf", "model": args.nli_model} if args.nli_model else {}
    with ServerThread(Emulator().app()) as upstream:
        raw = {
            "default_upstream": {"base_url": f"{upstream.url}/v1"},
            "retrieval": {"enabled": False},
            "verification": {"enabled": True, "verifier": {"nli": nli} if nli else {}},
            "retry": {"max_attempts": 1},
        }
        app = create_app(settings_from_mapping(raw, environ={}))
        with ServerThread(app) as proxy, httpx.Client(base_url=proxy.url, timeout=600) as client:
            sweep(client, corpora)
            stalls(client, [t for texts in corpora.values() for t in texts])
    return 0


def sweep(client: httpx.Client, corpora: dict[str, list[str]]) -> None:
    statuses: Counter[str] = Counter()
    failures: list[str] = []
    verifier_errors: list[str] = []  # answered, but unverified because the verifier raised
    texts = [(name, t) for name, ts in corpora.items() for t in ts]
    started = time.perf_counter()
    for i, (corpus, text) in enumerate(texts):
        other = texts[(i + 1) % len(texts)][1]
        chat = {
            "model": "gpt-test",
            "messages": [{"role": "user", "content": text}],
            "veriproxy": {"documents": [{"text": other}]},
        }
        verify = {"answer": text, "evidence": [{"pmid": "1", "abstract": other}]}
        calls = [
            ("chat", "/v1/chat/completions", chat),
            ("stream", "/v1/chat/completions", {**chat, "stream": True}),
            ("verify", "/v1/verify", verify),
        ]
        for entry, path, body in calls:
            resp = client.post(path, json=body)
            statuses[f"{entry} {resp.status_code}"] += 1
            if resp.status_code >= 500 or (entry == "stream" and _error_event(resp.text)):
                failures.append(f"{entry} {resp.status_code} [{corpus}] {text[:60]!r}")
            elif "verifier error" in resp.text:
                verifier_errors.append(f"{entry} [{corpus}] {text[:60]!r}")
    elapsed = time.perf_counter() - started
    total = sum(statuses.values())
    print(f"sweep: {len(texts)} texts from {len(corpora)} corpora x 3 entry points")
    print(f"  {total} requests in {elapsed:.0f} s; by entry point and status: {dict(statuses)}")
    print(f"  5xx answers or stream error events: {len(failures)}")
    for line in failures[:20]:
        print(f"    {line}")
    print(f"  answered unverified because the verifier raised: {len(verifier_errors)}")
    for line in verifier_errors[:20]:
        print(f"    {line}")


def _error_event(text: str) -> bool:
    for line in text.splitlines():
        if line.startswith("data: {") and "error" in json.loads(line[6:]):
            return True
    return False


def stalls(client: httpx.Client, texts: list[str]) -> None:
    corpus = " ".join(texts)
    abstract = (corpus * (9_500 // len(corpus) + 1))[:9_500]
    document = (corpus * (20_000 // len(corpus) + 1))[:20_000]
    answer = " ".join(f"Metformin lowers HbA1c by {i} percent [PMID:1]." for i in range(2000))
    heavy: dict[str, tuple[str, dict[str, Any]]] = {
        "/v1/verify, 100 abstracts of 9.5 KB, 2,000-sentence answer": (
            "/v1/verify",
            {
                "answer": answer,
                "evidence": [{"pmid": str(i), "abstract": abstract} for i in range(1, 101)],
            },
        ),
        "chat, 50 client documents of 20 KB": (
            "/v1/chat/completions",
            {
                "model": "gpt-test",
                "messages": [{"role": "user", "content": texts[0]}],
                "veriproxy": {"documents": [{"text": document}] * 50},
            },
        ),
    }
    for label, (path, body) in heavy.items():
        done = threading.Event()
        result: list[tuple[int, float]] = []
        args = (client, path, body, result, done)
        threading.Thread(target=_timed_post, args=args, daemon=True).start()
        latencies = []
        with httpx.Client(base_url=str(client.base_url), timeout=60) as probe:
            while not done.wait(0.05):
                started = time.perf_counter()
                probe.get("/healthz")
                latencies.append((time.perf_counter() - started) * 1000)
        status, seconds = result[0]
        print(f"stalls: {label}: HTTP {status} in {seconds:.1f} s")
        if latencies:
            print(
                f"  /healthz while it ran: {len(latencies)} probes, "
                f"p50 {statistics.median(latencies):.1f} ms, max {max(latencies):.1f} ms"
            )


def _timed_post(
    client: httpx.Client,
    path: str,
    body: dict[str, Any],
    result: list[tuple[int, float]],
    done: threading.Event,
) -> None:
    started = time.perf_counter()
    resp = client.post(path, json=body)
    result.append((resp.status_code, time.perf_counter() - started))
    done.set()


if __name__ == "__main__":
    raise SystemExit(main())
