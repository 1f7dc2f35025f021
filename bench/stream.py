"""Streaming with verification: annotate and gate mode versus passthrough, same run.

    python bench/stream.py [--requests 20] [--drip-ms 15] [--escalate | --quotes | --cited-at-end]

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

With ``--escalate``, annotate and gate mode run again with the LLM judge cascade on (every claim
escalated, no judge cache), once per judge delay (300 ms, then 1 s per judge call): the judge is
a second emulator, in this process, scripted to answer as a judge does (quoting the evidence it
cites, tests/verifiers/judge/scripted.py) after ``emu-slow-<ms>``. For each delay: how long
after the upstream's last token the annotate report arrives (and how much later than without
the judge), the gate delay per escalated sentence against passthrough, the judge requests the
judge emulator served and the claims whose judge verdict stood (``escalation.judged``). It
exits non-zero when a report has ``escalation.judge_error`` or no judge verdict stood.

With ``--quotes`` (issue 30), the answer quotes the abstract inside each citation
(``[PMID:12442934 "exact words"]``) and annotate mode runs on two proxies: one leaving the text
as written (``quotes_in_text: keep``, what a client got before quotes were stripped) and one
stripping them (``strip``, the default). For each: time to first token, and how much later than
with verification off each character reached the client (against the same character of the
answer as the model wrote it; a stripped bracket's ``]`` is the raw bracket's last), for the
characters outside citation brackets and for the brackets' own.

With ``--cited-at-end`` the same answer cites once, at its last sentence: the paragraph lends
that citation to the sentences before it (``SentenceSpan.closing``), so their verdicts wait for
the paragraph's end, and in gate mode their text with them. Run it beside a plain run to see
what that costs a gated client.

Targets (issue 5): annotate adds <= 2 ms to time to first token; the report arrives <= 300 ms
after the last token; gate adds <= 150 ms per sentence at p50. Issue 30: stripping delays no
first token and holds back no text but the bracket itself.
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
from typing import Any

import httpx
import yaml

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))  # for the tests' scripted judge
from overhead import base_env, child, free_port, pct, print_table

from policies.store import PRESETS_DIR
from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import ServerThread
from tests.verifiers.judge.scripted import judge_reply

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
QUOTES = (
    "Fifty patients scheduled for total hip replacement were allocated to two groups",
    "All patients were injected intrathecally with bupivacaine 20mg plus morphine 0.1 mg",
    "The perioperative blood loss increased by 45% in the ibuprofen group compared with placebo",
    "The total (+/-SD) blood loss in the ibuprofen group was 1161 (+/-472) mL versus 796 "
    "(+/-337) mL in the placebo group",
)
MODES: dict[str, dict[str, object]] = {
    "passthrough": {"verify": False},
    "annotate": {"policy": "research"},
    "gate": {"policy": "clinical-strict"},
}
MAX_REQUESTS = 200
JUDGE_DELAYS_MS = (300, 1000)
ESCALATED = ("annotate", "gate")  # the modes run again with the judge cascade on


@dataclass
class Run:
    first_token: float = 0.0
    last_token: float = 0.0
    report: float | None = None
    # (seconds since the request was sent, characters of content received so far)
    arrivals: list[tuple[float, int]] = field(default_factory=list)
    escalation: dict[str, Any] | None = None  # the report's summary of the judge's work
    escalated_ends: list[int] = field(default_factory=list)  # sentences with a claim escalated


def judged(mode: str, delay: int) -> str:
    """The name of ``mode`` run with the judge cascade on, the judge taking ``delay`` ms."""
    return f"{mode}, judge {delay} ms"


def judge_model(delay: int) -> str:
    """The judge emulator's model name: wait ``delay`` ms, then answer."""
    return f"emu-slow-{delay}"


def escalated_modes() -> dict[str, dict[str, object]]:
    return {
        judged(mode, delay): {"policy": f"{MODES[mode]['policy']}-judge-{delay}"}
        for delay in JUDGE_DELAYS_MS
        for mode in ESCALATED
    }


def write_policies(directory: Path) -> None:
    """Each escalated mode's policy: its preset with every claim sent to the judge of its
    delay, uncached (so every request asks the judge)."""
    directory.mkdir()
    for mode in ESCALATED:
        preset = yaml.safe_load((PRESETS_DIR / f"{MODES[mode]['policy']}.yaml").read_text())
        for delay in JUDGE_DELAYS_MS:
            name = f"{preset['name']}-judge-{delay}"
            escalate = {
                "judge": f"judge-{delay}",
                "when": [{"name": "every_claim", "confidence_below": 1.0}],
                "timeout_seconds": 10,
                "cache_ttl_seconds": 0,
            }
            policy = {**preset, "name": name, "escalate": escalate}
            (directory / f"{name}.yaml").write_text(json.dumps(policy))


def cited_at_end_answer() -> str:
    """:data:`ANSWER` cited once, at its last sentence: its paragraph lends that citation to
    the sentences before it, whose verdicts wait for the paragraph's end."""
    return ANSWER.replace(" [PMID:12442934]", "").removesuffix(".") + " [PMID:12442934]."


def quoted_answer() -> str:
    """:data:`ANSWER` with each citation quoting the abstract's words it rests on."""
    parts = ANSWER.split("[PMID:12442934]")
    quoted = [f'[PMID:12442934 "{quote}"]' for quote in QUOTES]
    return "".join(p + q for p, q in zip(parts, [*quoted, ""], strict=True))


def proxy_config(
    port: int, upstream: str, judge: str | None, policies: Path, quotes: str = "strip"
) -> dict[str, Any]:
    """``veriproxy serve``'s configuration; with a ``judge`` emulator (base URL), a ``models:``
    entry per judge delay and the escalated modes' policies."""
    config: dict[str, Any] = {
        "port": port,
        "log_level": "warning",
        "default_upstream": {"base_url": upstream},
        "retrieval": {"enabled": False, "citations": {"quotes_in_text": quotes}},
        "verification": {"enabled": True},
    }
    if judge is not None:
        write_policies(policies)
        config["models"] = {
            f"judge-{delay}": {"base_url": judge, "model": judge_model(delay), "api_key": "sk-x"}
            for delay in JUDGE_DELAYS_MS
        }
        config["verification"]["policies_dir"] = str(policies)
    return config


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
                run.escalation = verification.get("escalation")
                run.escalated_ends = [
                    s["end"]
                    for s in verification["sentences"]
                    if any(c.get("escalation") for c in s["claims"])
                ]
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


def sentence_ends(answer: str = ANSWER) -> list[int]:
    from verifiers.segment import segment

    return [span.end for span in segment(answer)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--drip-ms", type=int, default=15)
    parser.add_argument("--escalate", action="store_true", help="also run with the LLM judge")
    parser.add_argument("--quotes", action="store_true", help="quoted citations, keep vs strip")
    parser.add_argument(
        "--cited-at-end", action="store_true", help="the answer cited once, at its last sentence"
    )
    args = parser.parse_args()
    answer = cited_at_end_answer() if args.cited_at_end else ANSWER
    requests = min(args.requests, MAX_REQUESTS)
    if args.quotes:
        run_quotes(requests, args.drip_ms)
        return
    emulator_port, proxy_port = free_port(), free_port()
    env = base_env()
    modes = {**MODES, **(escalated_modes() if args.escalate else {})}
    judge = Emulator(reply=judge_reply("supported"))
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        judge_url = None
        if args.escalate:
            judge_url = stack.enter_context(ServerThread(judge.app())).url + "/v1"
        config = Path(tmp) / "veriproxy.yaml"
        upstream = f"http://127.0.0.1:{emulator_port}/v1"
        config.write_text(
            json.dumps(proxy_config(proxy_port, upstream, judge_url, Path(tmp, "policies")))
        )
        emulator_cmd = [
            sys.executable,
            "-m",
            "proxy.testing.emulator",
            "--port",
            str(emulator_port),
        ]
        emulator_cmd += ["--reply", answer]
        emulator_url = f"http://127.0.0.1:{emulator_port}/v1/models"
        stack.enter_context(child(emulator_cmd, env, emulator_url, "emulator"))
        proxy_cmd = [sys.executable, "-m", "proxy", "serve", "--config", str(config)]
        ready = f"http://127.0.0.1:{proxy_port}/readyz"
        stack.enter_context(child(proxy_cmd, env, ready, "veriproxy"))
        url = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
        runs: dict[str, list[Run]] = {mode: [] for mode in modes}
        with httpx.Client(timeout=120) as client:
            for options in modes.values():  # warm-up: model load, caches, connections
                one_request(client, url, options, args.drip_ms)
            judge.stats.reset()
            for i in range(requests):
                for mode, options in modes.items():
                    runs[mode].append(one_request(client, url, options, args.drip_ms))
                print(f"  request {i + 1}/{requests}", end="\r", flush=True)
    print()
    report(runs, args.drip_ms, answer)
    if args.escalate:
        calls = [body["model"] for body in judge.stats.requests]
        report_escalation(
            runs, {delay: calls.count(judge_model(delay)) for delay in JUDGE_DELAYS_MS}
        )


def run_quotes(requests: int, drip: int) -> None:
    """The quoted answer through passthrough, annotate keeping quotes, annotate stripping them."""
    answer = quoted_answer()
    env = base_env()
    emulator_port = free_port()
    upstream = f"http://127.0.0.1:{emulator_port}/v1"
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        emulator_cmd = [sys.executable, "-m", "proxy.testing.emulator"]
        emulator_cmd += ["--port", str(emulator_port), "--reply", answer]
        stack.enter_context(child(emulator_cmd, env, f"{upstream}/models", "emulator"))
        urls = {}
        for quotes in ("keep", "strip"):
            port = free_port()
            config = Path(tmp) / f"{quotes}.yaml"
            settings = proxy_config(port, upstream, None, Path(tmp), quotes)
            config.write_text(json.dumps(settings))
            proxy_cmd = [sys.executable, "-m", "proxy", "serve", "--config", str(config)]
            ready = f"http://127.0.0.1:{port}/readyz"
            stack.enter_context(child(proxy_cmd, env, ready, f"veriproxy ({quotes})"))
            urls[quotes] = f"http://127.0.0.1:{port}/v1/chat/completions"
        modes = {
            "passthrough": (urls["keep"], MODES["passthrough"]),
            "annotate, quotes kept (before)": (urls["keep"], MODES["annotate"]),
            "annotate, quotes stripped (after)": (urls["strip"], MODES["annotate"]),
        }
        runs: dict[str, list[Run]] = {mode: [] for mode in modes}
        with httpx.Client(timeout=120) as client:
            for url, options in modes.values():  # warm-up
                one_request(client, url, options, drip)
            for i in range(requests):
                for mode, (url, options) in modes.items():
                    runs[mode].append(one_request(client, url, options, drip))
                print(f"  request {i + 1}/{requests}", end="\r", flush=True)
    print()
    report_quotes(runs, answer, drip)


def sources(answer: str, stripped: bool) -> tuple[list[int], list[bool]]:
    """For each character the client reads: the offset of the same character in the answer as
    the model wrote it (a stripped bracket ``[PMID:1 "…"]`` reads ``[PMID:1]``: its ``]`` is the
    raw bracket's last), and whether it is part of a citation bracket."""
    from verifiers.quoting import find_quoted

    offsets: list[int] = []
    bracket: list[bool] = []
    at = 0
    for b in find_quoted(answer):
        offsets += range(at, b.start)
        bracket += [False] * (b.start - at)
        shown = [*range(b.start, b.start + len(b.bare) - 1), b.end - 1] if stripped else []
        offsets += shown or range(b.start, b.end)
        bracket += [True] * (len(shown) or b.end - b.start)
        at = b.end
    offsets += range(at, len(answer))
    bracket += [False] * (len(answer) - at)
    return offsets, bracket


def report_quotes(runs: dict[str, list[Run]], answer: str, drip: int) -> None:
    """TTFT, and how much later than with verification off each character reached the client
    (against the arrival of the same character there, request by request)."""
    base = runs["passthrough"]
    header = ["mode", "TTFT p50 ms", "TTFT p99 ms", "prose delay p50 ms", "p99", "max",
              "bracket delay p50 ms", "max"]  # fmt: skip
    rows = []
    for mode, items in runs.items():
        offsets, bracket = sources(answer, stripped="stripped" in mode)
        prose: list[float] = []
        held: list[float] = []
        for run, plain in zip(items, base, strict=True):
            for i, (raw, in_bracket) in enumerate(zip(offsets, bracket, strict=True)):
                delay = time_at(run.arrivals, i + 1) - time_at(plain.arrivals, raw + 1)
                (held if in_bracket else prose).append(delay)
        ttft = [r.first_token for r in items]
        rows.append(
            [mode, ms(ttft, 0.5), ms(ttft, 0.99), ms(prose, 0.5), ms(prose, 0.99),
             f"{max(prose) * 1000:.1f}", ms(held, 0.5), f"{max(held) * 1000:.1f}"]
        )  # fmt: skip
    print(f"quoted answer: {len(answer)} chars, {len(QUOTES)} quoted citations, drip {drip} ms")
    print_table(rows, header)
    print("delay: when the client got a character, less when it got it with verification off;")
    print("prose: every character outside a citation bracket; bracket: the bracket's own")


def report_after(runs: list[Run]) -> list[float]:
    """How long after the upstream's last token each report chunk arrived."""
    return [r.report - r.last_token for r in runs if r.report is not None]


def gate_delays(
    gate: list[Run], base: list[Run], escalated_only: bool = False, answer: str = ANSWER
) -> list[float]:
    """How much later each sentence (each escalated one) of ``answer`` reached the client than
    it did with verification off, request by request."""
    return [
        time_at(g.arrivals, end) - time_at(b.arrivals, end)
        for g, b in zip(gate, base, strict=True)
        for end in (g.escalated_ends if escalated_only else sentence_ends(answer))
    ]


def report(runs: dict[str, list[Run]], drip: int, answer: str = ANSWER) -> None:
    """Percentiles via ``overhead.pct``: samples in seconds, results in milliseconds."""
    base = runs["passthrough"]
    header = ["mode", "TTFT p50 ms", "TTFT p99 ms", "last token p50 ms", "report after last p50"]
    rows = []
    for mode, items in runs.items():
        after = report_after(items)
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
    print(
        f"answer: {len(sentence_ends(answer))} sentences, {len(answer)} chars, drip {drip} ms/chunk"
    )
    print_table(rows, header)
    first = [r.first_token for r in runs["annotate"]]
    ttft_added = pct(first, 0.5) - pct([r.first_token for r in base], 0.5)
    after = report_after(runs["annotate"])
    delays = gate_delays(runs["gate"], base, answer=answer)
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


def report_escalation(runs: dict[str, list[Run]], judge_calls: dict[int, int]) -> None:
    """Per judge delay: the annotate report after the last token (and against annotate without
    the judge), the gate delay per escalated sentence, the judge's requests and the claims
    judged. Exits non-zero when the judge failed, so no figure is of a judge that never ran."""
    header = ["judge delay", "judge requests", "claims judged", "report after last p50",
              "p99", "vs annotate p50", "escalated sentences", "gate delay p50", "p99"]  # fmt: skip
    without, rows = report_after(runs["annotate"]), []
    for delay in JUDGE_DELAYS_MS:
        annotate = report_after(runs[judged("annotate", delay)])
        delays = gate_delays(runs[judged("gate", delay)], runs["passthrough"], escalated_only=True)
        summaries = [r.escalation or {} for mode in ESCALATED for r in runs[judged(mode, delay)]]
        rows.append(
            [
                f"{delay} ms",
                str(judge_calls[delay]),
                str(sum(s.get("judged", 0) for s in summaries)),
                ms(annotate, 0.5),
                ms(annotate, 0.99),
                f"{pct(annotate, 0.5) - pct(without, 0.5):+.1f}" if annotate else "-",
                str(len(delays)),
                ms(delays, 0.5),
                ms(delays, 0.99),
            ]
        )
    print()
    print("with the LLM judge (every claim escalated, uncached; delays against passthrough):")
    print_table(rows, header)
    failures = judge_failures(runs)
    for failure in failures:
        print(f"judge failed: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)


def judge_failures(runs: dict[str, list[Run]]) -> list[str]:
    """Why the escalated figures are not of a working judge: a report without an escalation
    summary or with ``judge_error``, or a mode where no judge verdict stood."""
    failures = []
    for mode in escalated_modes():
        summaries = [r.escalation for r in runs[mode]]
        if None in summaries:
            failures.append(f"{mode}: a report has no escalation summary")
        present = [s for s in summaries if s is not None]
        errors = dict.fromkeys(s["judge_error"] for s in present if s.get("judge_error"))
        failures += [f"{mode}: judge_error: {error}" for error in errors]
        if not sum(s.get("judged", 0) for s in present):
            failures.append(f"{mode}: no judge verdict stood (escalation.judged is 0)")
    return failures


def ms(samples: list[float], q: float) -> str:
    """A percentile in milliseconds, or "-" without samples."""
    return f"{pct(samples, q):.1f}" if samples else "-"


if __name__ == "__main__":
    main()
