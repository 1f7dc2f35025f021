"""Proxy overhead: veriproxy vs calling the upstream emulator directly vs the LiteLLM proxy.

    python bench/overhead.py [--requests 300] [--concurrency 32] [--concurrent-requests 960]
                             [--no-litellm] [--litellm-bin PATH] [--features]

Starts child processes on loopback: the upstream emulator (``python -m proxy.testing.emulator``),
``veriproxy serve`` in front of it (keyless on loopback, default settings; retrieval and
verification off unless ``--features``, so this measures the proxy core), and -- when the
``litellm`` CLI can run its proxy (``litellm[proxy]``) -- ``litellm --config`` on the same
emulator. ``litellm[proxy]`` of our pinned litellm needs a package the index lacks; a separate
venv works: ``python -m venv /tmp/ll && /tmp/ll/bin/pip install 'litellm[proxy]==1.60.8'``,
then ``--litellm-bin /tmp/ll/bin/litellm``. Then, for each
scenario, the same client (httpx, keep-alive) measures every target in turn:

* non-streaming chat completion: latency to the full body;
* streaming: time to first token (first event whose delta has non-empty content);
* embeddings: latency to the full body (the passthrough path, nothing verified);

sequentially and with ``--concurrency`` clients. The table shows p50/p99 latency per target and
the overhead each proxy adds over the direct call (difference of the percentiles). Targets: p50
overhead <= 1 ms sequentially and <= a third of the LiteLLM proxy's. Request counts are bounded
and every server is on 127.0.0.1; everything stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from proxy.config import Settings

MAX_REQUESTS = 5000
WARMUP = 20
STARTUP_TIMEOUT_S = 90.0
REPLY = "Aspirin irreversibly inhibits cyclooxygenase-1 in platelets, which reduces thromboxane A2."
MESSAGES = [{"role": "user", "content": "How does aspirin affect platelets?"}]


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    base_url: str
    model: str
    pid: int  # the server process whose CPU time is charged to this target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), to report CPU per request."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def child(cmd: list[str], env: dict[str, str], ready_url: str, name: str) -> Iterator[int | None]:
    """Run a server process until the block ends; yields its pid, or None if it never started."""
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        ready = False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(ready_url, timeout=1).status_code == 200:
                    ready = True
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        print(f"  {name}: {'ready' if ready else 'did not start'}", flush=True)
        yield proc.pid if ready else None
    finally:
        terminate(proc)


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """Stop a child server: SIGTERM, then SIGKILL if it has not gone within 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("VERIPROXY_")}


def litellm_available(binary: str) -> bool:
    """The LiteLLM proxy CLI runs (``litellm[proxy]`` installed wherever ``binary`` lives: this
    venv, or a separate one when its pins clash with ours)."""
    if shutil.which(binary) is None:
        return False
    probe = subprocess.run([binary, "--help"], capture_output=True, timeout=120)
    return probe.returncode == 0


async def one_completion(client: httpx.AsyncClient, target: Target) -> float:
    body = {"model": target.model, "messages": MESSAGES}
    started = time.perf_counter()
    response = await client.post(f"{target.base_url}/chat/completions", json=body)
    response.raise_for_status()
    json.loads(response.content)
    return time.perf_counter() - started


async def one_ttft(client: httpx.AsyncClient, target: Target) -> float:
    body = {"model": target.model, "messages": MESSAGES, "stream": True}
    started = time.perf_counter()
    first: float | None = None
    async with client.stream("POST", f"{target.base_url}/chat/completions", json=body) as r:
        r.raise_for_status()
        async for line in r.aiter_lines():
            if first is None and line.startswith("data: {"):
                choices = json.loads(line[6:]).get("choices") or [{}]
                if choices[0].get("delta", {}).get("content"):
                    first = time.perf_counter() - started
    if first is None:
        raise RuntimeError(f"{target.name}: stream had no content")
    return first


async def one_embedding(client: httpx.AsyncClient, target: Target) -> float:
    """The passthrough path: ``/embeddings`` is relayed, not verified."""
    body = {"model": target.model, "input": [REPLY], "encoding_format": "float"}
    started = time.perf_counter()
    response = await client.post(f"{target.base_url}/embeddings", json=body)
    response.raise_for_status()
    json.loads(response.content)
    return time.perf_counter() - started


Measure = Callable[[httpx.AsyncClient, Target], Awaitable[float]]


async def run_scenario(
    client: httpx.AsyncClient, target: Target, measure: Measure, total: int, concurrency: int
) -> list[float]:
    for _ in range(WARMUP):  # warm the pools and caches
        await measure(client, target)
    samples: list[float] = []
    remaining = total

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            samples.append(await measure(client, target))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return samples


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def measure_all(targets: list[Target], args: argparse.Namespace) -> list[list[str]]:
    rows: list[list[str]] = []
    limits = httpx.Limits(max_connections=args.concurrency * 2, max_keepalive_connections=128)
    scenarios: list[tuple[str, Measure, int, int]] = [
        ("non-stream, sequential", one_completion, args.requests, 1),
        ("stream TTFT, sequential", one_ttft, args.requests, 1),
        ("embeddings (passthrough), sequential", one_embedding, args.requests, 1),
        (f"non-stream, {args.concurrency} conc.", one_completion, args.concurrent_requests,
         args.concurrency),
        (f"stream TTFT, {args.concurrency} conc.", one_ttft, args.concurrent_requests,
         args.concurrency),
        (f"embeddings (passthrough), {args.concurrency} conc.", one_embedding,
         args.concurrent_requests, args.concurrency),
    ]  # fmt: skip
    async with httpx.AsyncClient(timeout=60, limits=limits, trust_env=False) as client:
        for label, measure, total, conc in scenarios:
            print(f"  {label}: {total} requests per target", flush=True)
            results: dict[str, list[float]] = {}
            cpu_ms: dict[str, float] = {}
            for t in targets:
                cpu_before = cpu_seconds(t.pid)
                results[t.name] = await run_scenario(client, t, measure, total, conc)
                cpu_ms[t.name] = (cpu_seconds(t.pid) - cpu_before) * 1000 / (total + WARMUP)
            direct = results["direct"]
            for t in targets:
                s = results[t.name]
                p50, p99 = pct(s, 0.5), pct(s, 0.99)
                over = (
                    "-"
                    if t.name == "direct"
                    else f"{p50 - pct(direct, 0.5):+.2f} / {p99 - pct(direct, 0.99):+.2f}"
                )
                cpu = f"{cpu_ms[t.name]:.2f}"
                rows.append([label, t.name, f"{p50:.2f}", f"{p99:.2f}", over, cpu, str(len(s))])
    return rows


HEADER = ["scenario", "target", "p50 ms", "p99 ms", "overhead p50/p99 ms", "cpu ms/req", "n"]


def print_table(rows: list[list[str]], header: list[str] = HEADER) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))


def summarise(rows: list[list[str]]) -> None:
    def p50_over(scenario: str, target: str) -> float | None:
        for row in rows:
            if row[0] == scenario and row[1] == target:
                return float(row[4].split(" / ")[0])
        return None

    for scenario in dict.fromkeys(r[0] for r in rows):
        ours, theirs = p50_over(scenario, "veriproxy"), p50_over(scenario, "litellm-proxy")
        ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else "n/a"
        print(f"{scenario}: veriproxy p50 overhead {ours:+.2f} ms; ratio to LiteLLM {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="per target, sequential")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--concurrent-requests", type=int, default=960)
    parser.add_argument("--no-litellm", action="store_true", help="skip the LiteLLM proxy")
    parser.add_argument(
        "--litellm-bin", default="litellm", help="the LiteLLM proxy CLI (default: on PATH)"
    )
    parser.add_argument(
        "--features", action="store_true", help="keep retrieval and verification on"
    )
    args = parser.parse_args()
    args.requests = min(args.requests, MAX_REQUESTS)
    args.concurrent_requests = min(args.concurrent_requests, MAX_REQUESTS)

    print(f"cpus={os.cpu_count()} loadavg={os.getloadavg()[0]:.1f}", flush=True)
    emu_port, proxy_port, litellm_port = free_port(), free_port(), free_port()
    emu_url = f"http://127.0.0.1:{emu_port}/v1"
    proxy_env = base_env() | {
        "VERIPROXY_DEFAULT_UPSTREAM__BASE_URL": emu_url,
        "VERIPROXY_PORT": str(proxy_port),
    }
    if not args.features:
        # The proxy core alone: switch off the features layered on it, where this build has them.
        for section in ("retrieval", "verification"):
            if section in Settings.__dataclass_fields__:
                proxy_env[f"VERIPROXY_{section.upper()}__ENABLED"] = "false"
    use_litellm = not args.no_litellm and litellm_available(args.litellm_bin)
    if not args.no_litellm and not use_litellm:
        print("  litellm-proxy: unavailable (litellm[proxy] is not installed); skipped")

    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        litellm_config = Path(tmp) / "litellm.yaml"
        litellm_config.write_text(
            "model_list:\n"
            "  - model_name: bench\n"
            f"    litellm_params: {{model: openai/bench, api_base: '{emu_url}', "
            "api_key: sk-bench}\n"
        )
        emu_cmd = [sys.executable, "-m", "proxy.testing.emulator", "--port", str(emu_port),
                   "--reply", REPLY]  # fmt: skip
        proxy_cmd = [sys.executable, "-m", "proxy", "serve"]
        litellm_cmd = [args.litellm_bin, "--config", str(litellm_config),
                       "--port", str(litellm_port), "--host", "127.0.0.1",
                       "--num_workers", "1"]  # fmt: skip
        emu_pid = stack.enter_context(child(emu_cmd, base_env(), f"{emu_url}/models", "emulator"))
        proxy_pid = stack.enter_context(
            child(proxy_cmd, proxy_env, f"http://127.0.0.1:{proxy_port}/readyz", "veriproxy")
        )
        if emu_pid is None or proxy_pid is None:
            sys.exit("emulator or proxy did not start")
        targets = [
            Target("direct", emu_url, "bench", emu_pid),
            Target("veriproxy", f"http://127.0.0.1:{proxy_port}/v1", "bench", proxy_pid),
        ]
        if use_litellm:
            litellm_url = f"http://127.0.0.1:{litellm_port}"
            litellm_pid = stack.enter_context(
                child(litellm_cmd, base_env(), f"{litellm_url}/health/liveliness", "litellm-proxy")
            )
            if litellm_pid is not None:
                targets.append(Target("litellm-proxy", litellm_url, "bench", litellm_pid))
        rows = asyncio.run(measure_all(targets, args))
    print()
    print_table(rows)
    print()
    summarise(rows)
    print(
        "cpu ms/req: CPU time of that target's server process per request (direct: the "
        "emulator; proxies: the proxy alone) -- far less sensitive than latency to how busy "
        "the machine is."
    )


if __name__ == "__main__":
    main()
