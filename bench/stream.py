"""Streaming with verification: annotate and gate mode versus passthrough, same run.

    python bench/stream.py [--requests 20] [--drip-ms 15]

Starts the upstream emulator and ``veriproxy serve`` (bundled NLI model, verification on) as
child processes on loopback. The emulator streams a five-sentence answer built from a real
PubMedQA abstract (tests/fixtures/pubmedqa_12442934.json), one chunk every ``--drip-ms`` (a
model's token pace); the client sends that abstract as its evidence document, so all three
modes do the same work apart from verification:

* passthrough: ``verify: false``;
* annotate: the ``research`` policy (annotate mode) -- time to first token, and how long after
  the upstream's last token the report chunk arrives;
* gate: the ``clinical-strict`` policy (gate mode) -- how much later each sentence reaches the
  client than it would have without verification (matched by character offset).

Targets (issue 5): annotate adds <= 2 ms to time to first token; the report arrives <= 300 ms
after the last token; gate adds <= 150 ms per sentence at p50.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from overhead import base_env, child, free_port, pct, print_table

ROOT = Path(__file__).parents[1]
DOC = json.loads((ROOT / "tests" / "fixtures" / "pubmedqa_12442934.json").read_text())
ANSWER = (
    "Fifty patients scheduled for total hip replacement were randomised to placebo or "
    "ibuprofen for two weeks before surgery [PMID:12442934]. "
    "All patients received intrathecal bupivacaine 20 mg plus morphine 0.1 mg [PMID:12442934]. "
    "Perioperative blood loss increased by 45% in the ibuprofen group [PMID:12442934]. "
    "Total blood loss was 1161 mL with ibuprofen versus 796 mL with placebo [PMID:12442934]. "
    "Early discontinuation of non-selective NSAIDs before hip surgery is advised."
)
MODES = {
    "passthrough": {"verify": False},
    "annotate": {"policy": "research"},
    "gate": {"policy": "clinical-strict"},
}
MAX_REQUESTS = 200


@dataclass
class Run:
    first_token: float = 0.0
    last_token: float = 0.0
    report: float | None = None
    # (seconds since the request was sent, characters of content received so far)
    arrivals: list[tuple[float, int]] = field(default_factory=list)


def one_request(client: httpx.Client, url: str, options: dict[str, object], drip: int) -> Run:
    body = {
        "model": f"emu-drip-{drip}",  # the emulator's pacing mode, chosen by model name
        "stream": True,
        "messages": [{"role": "user", "content": DOC["title"]}],
        "veriproxy": {"documents": [{"pmid": DOC["pmid"], "text": DOC["text"]}], **options},
    }
    run, received = Run(), 0
    started = time.perf_counter()
    with client.stream("POST", url, json=body) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            now = time.perf_counter() - started
            chunk = json.loads(line[6:])
            verification = chunk.get("verification")
            if verification is not None and verification["type"] == "report":
                run.report = now
            choices = chunk.get("choices") or [{}]
            content = (choices[0].get("delta") or {}).get("content") or ""
            if content:
                received += len(content)
                run.first_token = run.first_token or now
                run.last_token = now
                run.arrivals.append((now, received))
    return run


def time_at(arrivals: list[tuple[float, int]], chars: int) -> float:
    """When the first ``chars`` characters of content had arrived."""
    index = bisect.bisect_left([c for _, c in arrivals], chars)
    return arrivals[min(index, len(arrivals) - 1)][0]


def sentence_ends() -> list[int]:
    from verifiers.segment import segment

    return [span.end for span in segment(ANSWER)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--drip-ms", type=int, default=15)
    args = parser.parse_args()
    requests = min(args.requests, MAX_REQUESTS)
    emulator_port, proxy_port = free_port(), free_port()
    env = base_env()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "veriproxy.yaml"
        config.write_text(
            json.dumps(
                {
                    "port": proxy_port,
                    "log_level": "warning",
                    "default_upstream": {"base_url": f"http://127.0.0.1:{emulator_port}/v1"},
                    "retrieval": {"enabled": False},
                    "verification": {"enabled": True},
                }
            )
        )
        emulator_cmd = [sys.executable, "-m", "proxy.emulator", "--port", str(emulator_port)]
        emulator_cmd += ["--reply", ANSWER]
        emulator_url = f"http://127.0.0.1:{emulator_port}/v1/models"
        stack.enter_context(child(emulator_cmd, env, emulator_url, "emulator"))
        proxy_cmd = [sys.executable, "-m", "proxy", "serve", "--config", str(config)]
        ready = f"http://127.0.0.1:{proxy_port}/readyz"
        stack.enter_context(child(proxy_cmd, env, ready, "veriproxy"))
        url = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
        runs: dict[str, list[Run]] = {mode: [] for mode in MODES}
        with httpx.Client(timeout=120) as client:
            for options in MODES.values():  # warm-up: model load, caches, connections
                one_request(client, url, options, args.drip_ms)
            for i in range(requests):
                for mode, options in MODES.items():
                    runs[mode].append(one_request(client, url, options, args.drip_ms))
                print(f"  request {i + 1}/{requests}", end="\r", flush=True)
    print()
    report(runs, args.drip_ms)


def report(runs: dict[str, list[Run]], drip: int) -> None:
    """Percentiles via ``overhead.pct``: samples in seconds, results in milliseconds."""
    base = runs["passthrough"]
    header = ["mode", "TTFT p50 ms", "TTFT p99 ms", "last token p50 ms", "report after last p50"]
    rows = []
    for mode, items in runs.items():
        after = [r.report - r.last_token for r in items if r.report is not None]
        ttft = [r.first_token for r in items]
        rows.append(
            [
                mode,
                f"{pct(ttft, 0.5):.1f}",
                f"{pct(ttft, 0.99):.1f}",
                f"{pct([r.last_token for r in items], 0.5):.1f}",
                f"{pct(after, 0.5):.1f}" if after else "-",
            ]
        )
    print(f"answer: {len(sentence_ends())} sentences, {len(ANSWER)} chars, drip {drip} ms/chunk")
    print_table(rows, header)
    first = [r.first_token for r in runs["annotate"]]
    ttft_added = pct(first, 0.5) - pct([r.first_token for r in base], 0.5)
    after = [r.report - r.last_token for r in runs["annotate"] if r.report is not None]
    delays = [
        time_at(g.arrivals, end) - time_at(b.arrivals, end)
        for g, b in zip(runs["gate"], base, strict=True)
        for end in sentence_ends()
    ]
    print()
    print(f"annotate adds to TTFT (p50):           {ttft_added:7.2f} ms (target <= 2)")
    print(
        f"report after the last token (p50/p99): {pct(after, 0.5):7.1f} / "
        f"{pct(after, 0.99):.1f} ms (target <= 300)"
    )
    print(
        f"gate delay per sentence (p50/p99):     {pct(delays, 0.5):7.1f} / "
        f"{pct(delays, 0.99):.1f} ms (target <= 150)"
    )


if __name__ == "__main__":
    main()
