"""Load: N concurrent streaming clients through a real proxy process, against the emulator.

    python bench/load.py [--clients 16] [--duration 20] [--drip-ms 5] [--no-auth]
                         [--passthrough] [--config EXTRA.yaml] [--soak-minutes 10] [--workers N]

Starts two child processes on loopback: the upstream emulator and ``veriproxy serve`` (with a
fresh proxy key unless ``--no-auth``). Each client loops: one streaming chat completion, read to
``[DONE]``. Prints a progress line every few seconds, then errors, p50/p99 time to first byte
and to the last byte, throughput, and the proxy's peak RSS (``VmHWM``; with ``--workers N``, each
worker's and their sum). ``--soak-minutes M``
runs M minutes instead of ``--duration`` and also prints the RSS slope (least squares over the
samples after the first tenth; MiB per minute): a leak shows as a steady positive slope.

Retrieval and verification run as the configuration says (on by default: the bundled index and
NLI model); ``--passthrough`` turns both off for a baseline, and ``--config`` merges extra YAML
over the bench's own. Everything is bounded: at most 512 clients, 600 s per run, 60 soak
minutes; loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml

from proxy.auth import FileKeyStore, new_key

sys.path.insert(0, str(Path(__file__).parent))
from overhead import terminate

MAX_CLIENTS = 512
MAX_DURATION_S = 600
MAX_SOAK_MINUTES = 60
MAX_WORKERS = 16
WORKER_WARMUP_S = 8.0
PROGRESS_EVERY_S = 5.0
RSS_SAMPLE_EVERY_S = 0.5
ANSWER = (
    "Metformin lowers HbA1c in adults with type 2 diabetes [PMID:1]. "
    "The usual starting dose is 500 mg twice daily with meals [PMID:2]. "
    "Gastrointestinal side effects are common early in treatment."
)

# The children run the product's own entry points, without the CLI's command registry.
EMULATOR_MAIN = (
    "import sys, uvicorn; from proxy.testing.emulator import Emulator; "
    "uvicorn.run(Emulator(reply=sys.argv[2]).app(), host='127.0.0.1', port=int(sys.argv[1]), "
    "log_level='warning', access_log=False)"
)
SERVE_MAIN = (
    "import argparse, sys; from proxy.cli import serve; "
    "sys.exit(serve.run(argparse.Namespace(config=sys.argv[1], host=None, port=None, "
    "workers=int(sys.argv[2]))))"
)


@dataclass
class Tally:
    ttfb: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{url}: process exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1.0)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up within {timeout:.0f} s")


@contextmanager
def child(args: list[str], env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(args, env=env)
    try:
        yield process
    finally:
        terminate(process)


def rss_kib(pid: int, field_name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def proxy_config(args: argparse.Namespace, upstream: str, port: int, workdir: Path) -> Path:
    config: dict[str, object] = {
        "host": "127.0.0.1",
        "port": port,
        "log_level": "warning",
        "default_upstream": {"base_url": upstream},
        "limits": {"max_streams_per_key": max(args.clients, 1)},
    }
    if args.passthrough:
        config.update(retrieval={"enabled": False}, verification={"enabled": False})
    if args.config:
        extra = yaml.safe_load(Path(args.config).read_text()) or {}
        config = {**config, **extra}
    path = workdir / "proxy.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def create_key(workdir: Path, config: Path) -> str:
    """A fresh proxy key in a key file the proxy's config now names."""
    store = workdir / "keys.json"
    data = yaml.safe_load(config.read_text())
    data["auth"] = {**(data.get("auth") or {}), "store": str(store)}
    config.write_text(yaml.safe_dump(data))
    key, record = new_key("bench")
    asyncio.run(FileKeyStore(store).put(record))
    return key


async def one_stream(client: httpx.AsyncClient, url: str, body: bytes, tally: Tally) -> None:
    """One streaming request read to the end; an error event (a top-level ``error`` object)
    or a stream without ``[DONE]`` counts as an error."""
    started = time.perf_counter()
    first: float | None = None
    done = False
    try:
        async with client.stream("POST", url, content=body) as resp:
            if resp.status_code != 200:
                await resp.aread()
                tally.error(f"http_{resp.status_code}")
                return
            async for line in resp.aiter_lines():
                if first is None:
                    first = time.perf_counter() - started
                if not line.startswith("data: "):
                    continue
                if line == "data: [DONE]":
                    done = True
                elif "error" in json.loads(line[6:]):
                    tally.error("error_event")
                    return
    except httpx.HTTPError as exc:
        tally.error(type(exc).__name__)
        return
    if not done or first is None:
        tally.error("truncated")
        return
    tally.ttfb.append(first)
    tally.total.append(time.perf_counter() - started)


async def client_loop(url: str, key: str | None, body: bytes, stop_at: float, tally: Tally) -> None:
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    timeout = httpx.Timeout(60.0)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits) as client:
        while time.monotonic() < stop_at:
            await one_stream(client, url, body, tally)


def serving_processes(pid: int) -> list[int]:
    """The process that serves, or the workers under a ``--workers`` supervisor (not
    multiprocessing's resource tracker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = [
        int(c)
        for c in children
        if b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()
    ]
    return workers or [pid]


async def sample_rss(pid: int, stop_at: float, samples: list[tuple[float, float]]) -> None:
    started = time.monotonic()
    last_report = started
    while time.monotonic() < stop_at:
        now = time.monotonic()
        rss = sum(rss_kib(p, "VmRSS") for p in serving_processes(pid))
        samples.append((now - started, rss / 1024))
        if now - last_report >= PROGRESS_EVERY_S:
            last_report = now
            print(
                f"[load] t={now - started:6.1f}s  rss={samples[-1][1]:7.1f} MiB",
                file=sys.stderr,
                flush=True,
            )
        await asyncio.sleep(min(RSS_SAMPLE_EVERY_S, max(0.0, stop_at - time.monotonic())))


async def progress(tally: Tally, stop_at: float) -> None:
    started = time.monotonic()
    while time.monotonic() < stop_at:
        await asyncio.sleep(min(PROGRESS_EVERY_S, max(0.0, stop_at - time.monotonic())))
        done, errors = len(tally.total), sum(tally.errors.values())
        elapsed = time.monotonic() - started
        print(
            f"[load] {done} streams ok, {errors} errors, {done / elapsed:.1f}/s",
            file=sys.stderr,
            flush=True,
        )


def slope_mib_per_min(samples: list[tuple[float, float]]) -> float:
    kept = samples[len(samples) // 10 :]
    if len(kept) < 3:
        return float("nan")
    xs = [t / 60 for t, _ in kept]
    ys = [rss for _, rss in kept]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    denominator = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / denominator


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def drive(args: argparse.Namespace, url: str, key: str | None, pid: int) -> dict[str, object]:
    model = f"emu-drip-{args.drip_ms}" if args.drip_ms else "bench"
    messages = [{"role": "user", "content": "Does metformin lower HbA1c?"}]
    body = json.dumps({"model": model, "messages": messages, "stream": True}).encode()
    seconds = args.soak_minutes * 60 if args.soak_minutes else args.duration
    tally, samples = Tally(), list[tuple[float, float]]()
    started = time.monotonic()
    stop_at = started + seconds
    await asyncio.gather(
        sample_rss(pid, stop_at, samples),
        progress(tally, stop_at),
        *(client_loop(url, key, body, stop_at, tally) for _ in range(args.clients)),
    )
    elapsed = time.monotonic() - started
    peaks = [round(rss_kib(p, "VmHWM") / 1024, 1) for p in serving_processes(pid)]
    result: dict[str, object] = {
        "clients": args.clients,
        "workers": args.workers,
        "seconds": round(elapsed, 1),
        "auth": key is not None,
        "passthrough": args.passthrough,
        "streams_ok": len(tally.total),
        "errors": sum(tally.errors.values()),
        "errors_by_kind": tally.errors,
        "throughput_streams_per_s": round(len(tally.total) / elapsed, 1),
        "ttfb_p50_ms": round(percentile(tally.ttfb, 0.5) * 1000, 1),
        "ttfb_p99_ms": round(percentile(tally.ttfb, 0.99) * 1000, 1),
        "latency_p50_ms": round(percentile(tally.total, 0.5) * 1000, 1),
        "latency_p99_ms": round(percentile(tally.total, 0.99) * 1000, 1),
        "proxy_peak_rss_mib": round(sum(peaks), 1),
    }
    if args.workers > 1:
        result["worker_peak_rss_mib"] = peaks
    if args.soak_minutes:
        result["rss_slope_mib_per_min"] = round(slope_mib_per_min(samples), 3)
    return result


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds (not soak)")
    parser.add_argument("--drip-ms", type=int, default=5, help="emulator delay between chunks")
    parser.add_argument("--no-auth", action="store_true", help="keyless proxy (local mode)")
    parser.add_argument(
        "--passthrough", action="store_true", help="retrieval and verification off (baseline)"
    )
    parser.add_argument("--config", help="extra YAML merged over the bench's proxy config")
    parser.add_argument("--soak-minutes", type=float, default=0.0)
    parser.add_argument("--workers", type=int, default=1, help="veriproxy serve --workers N")
    args = parser.parse_args()
    if not 1 <= args.clients <= MAX_CLIENTS:
        parser.error(f"--clients must be 1..{MAX_CLIENTS}")
    if not 0 < args.duration <= MAX_DURATION_S:
        parser.error(f"--duration must be in (0, {MAX_DURATION_S}]")
    if not 1 <= args.workers <= MAX_WORKERS:
        parser.error(f"--workers must be 1..{MAX_WORKERS}")
    if not 0 <= args.soak_minutes <= MAX_SOAK_MINUTES:
        parser.error(f"--soak-minutes must be 0..{MAX_SOAK_MINUTES}")
    return args


def main() -> None:
    args = parse_args()
    emulator_port, proxy_port = free_port(), free_port()
    upstream = f"http://127.0.0.1:{emulator_port}/v1"
    emulator_cmd = [sys.executable, "-c", EMULATOR_MAIN, str(emulator_port), ANSWER]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        config = proxy_config(args, upstream, proxy_port, workdir)
        key = None if args.no_auth else create_key(workdir, config)
        env = {k: v for k, v in os.environ.items() if not k.startswith("VERIPROXY_")}
        serve_cmd = [sys.executable, "-c", SERVE_MAIN, str(config), str(args.workers)]
        with (
            child(emulator_cmd, env) as emulator,
            child(serve_cmd, env) as proxy,
        ):
            wait_until_up(f"http://127.0.0.1:{emulator_port}/v1/models", emulator)
            wait_until_up(f"http://127.0.0.1:{proxy_port}/healthz", proxy)
            if args.workers > 1:
                # The first worker answers while the others may still be loading their models.
                print(f"[load] {WORKER_WARMUP_S:.0f} s for the workers to start", file=sys.stderr)
                time.sleep(WORKER_WARMUP_S)
            length = f"{args.soak_minutes} min soak" if args.soak_minutes else f"{args.duration} s"
            print(f"[load] {args.clients} clients for {length}", file=sys.stderr, flush=True)
            url = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
            result = asyncio.run(drive(args, url, key, proxy.pid))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
