"""Overhead of observability on the passthrough path: metrics, rate limits and the audit log.

    python -m bench.observability [--requests 400] [--rounds 6]

Everything runs in one process over ASGI (no sockets, so network jitter does not drown a
sub-millisecond difference): the proxy app in front of the upstream emulator, non-streaming
chat completions, the same request each time. Three apps are measured in the same run, in
rounds whose order rotates, so drift on a shared machine hits them alike:

* ``off``: default settings; a finaliser that does nothing (same JSON re-encoding as ``on``);
* ``on``: metrics and audit -- a finaliser that calls ``recorder.record_response`` with a
  5-sentence report (sentence, outcome, risk and citation metrics plus one audit record), the
  audit log to a JSONL file and to a Redis Stream (127.0.0.1:6379);
* ``rate limit``: Redis request and token limits only (one Redis round trip per request, two
  with a token budget), shown for information; it is not part of the target.

The request metrics in the request-context middleware cannot be switched off, so their cost is
timed directly (the exact calls the middleware makes, per request) and added. Prints p50/p95 of
each app and the p50 overhead of metrics and audit; the target is <= 0.2 ms p50. Keys it
writes to Redis live under a fresh prefix in DB 9 and are deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import redis
from starlette.applications import Starlette

from policies import DecidedReport, DecidedSentence, ReportStatus
from proxy.app import create_app
from proxy.audit import AuditLog, JsonlSink, RedisStreamSink, ResponseRecorder
from proxy.config import settings_from_mapping
from proxy.extensions import Extensions, RequestContext
from proxy.metrics import Metrics
from proxy.outcome import ResponseOutcome
from proxy.state import RedisLink, RedisSettings
from proxy.testing.emulator import Emulator
from verifiers import Citation, Verdict

REDIS_URL = "redis://127.0.0.1:6379/9"
MAX_REQUESTS = 5000
BODY = {"model": "gpt-x", "messages": [{"role": "user", "content": "Does aspirin help?"}]}


def _report() -> DecidedReport:
    verdicts = (V := Verdict).SUPPORTED, V.SUPPORTED, V.UNSUPPORTED, V.UNCITED, V.NOT_CHECKWORTHY
    sentences = tuple(
        DecidedSentence(
            index=i,
            text=f"Sentence {i}.",
            start=i * 12,
            end=i * 12 + 11,
            verdict=v,
            confidence=0.9,
            citations=(Citation("[PMID:1]", "1", 0, 8, True),),
            harm=1 + i,
        )
        for i, v in enumerate(verdicts)
    )
    return DecidedReport(
        status=ReportStatus.FLAGGED,
        support=0.6,
        risk=0.4,
        faithful=False,
        counts={"supported": 2},
        sentences=sentences,
        policy="default",
        latency_ms={"retrieval": 3.0, "verification": 9.0, "policy": 0.1},
    )


class Finaliser:
    """``record`` off: returns the completion (the JSON work both apps share)."""

    def __init__(self, record: bool) -> None:
        self.record = record
        self.recorder: ResponseRecorder | None = None
        self.report = _report()

    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        if self.record and self.recorder is not None:
            self.recorder.record_response(
                ResponseOutcome(ctx.request_id, None, ctx.model, self.report)
            )
        return completion


@asynccontextmanager
async def running(config: dict[str, Any], record: bool) -> AsyncIterator[httpx.AsyncClient]:
    upstream = httpx.ASGITransport(app=Emulator().app())
    settings = settings_from_mapping(
        {"default_upstream": {"base_url": "http://upstream/v1"}, **config}, environ={}
    )
    finaliser = Finaliser(record)
    app: Starlette = create_app(
        settings, transport=upstream, extensions=Extensions(finalisers=(finaliser,))
    )
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(app.router.lifespan_context(app))
        finaliser.recorder = app.state.recorder
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://p")
        yield await stack.enter_async_context(client)


async def timed(
    client: httpx.AsyncClient, n: int, cpu: dict[str, float] | None = None, name: str = ""
) -> list[float]:
    """Wall time per request; ``cpu[name]`` accumulates the process CPU time of the batch
    (background work such as the audit flusher included)."""
    out = []
    cpu_start = time.process_time()
    for _ in range(n):
        start = time.perf_counter()
        response = await client.post("/v1/chat/completions", json=BODY)
        out.append(time.perf_counter() - start)
        if response.status_code != 200:
            raise SystemExit(f"request failed: {response.status_code} {response.text[:200]}")
    await asyncio.sleep(0.02)  # let this app's background flush finish inside its own batch
    if cpu is not None:
        cpu[name] = cpu.get(name, 0.0) + time.process_time() - cpu_start
    return out


def middleware_metrics_cost(n: int) -> list[float]:
    """The per-request metric calls of the request-context middleware, timed directly."""
    metrics = Metrics(routes=["/v1/chat/completions"], models=["gpt-x"])
    out = []
    for _ in range(n):
        start = time.perf_counter()
        route = metrics.route_label("/v1/chat/completions")
        inflight = metrics.inflight.labels(route)
        inflight.inc()
        inflight.dec()
        tenant = metrics.tenant_label(None)
        metrics.requests.labels(route, "gpt-x", tenant, "200").inc()
        metrics.duration.labels(route, "gpt-x").observe(0.001)
        out.append(time.perf_counter() - start)
    return out


async def component_cpu(n: int, tmp: str, prefix: str) -> dict[str, float]:
    """CPU milliseconds per response of each piece, alone (robust on a busy machine, where
    wall-clock differences stretch with the run queue)."""
    metrics = Metrics(routes=(), models=["gpt-x"])
    link = RedisLink(RedisSettings(REDIS_URL, prefix=prefix), metrics)
    report = _report()
    pieces = {
        "recorder metrics (5 sentences)": AuditLog(),
        "+ audit to JSONL": AuditLog(jsonl=JsonlSink(Path(tmp) / "cpu.jsonl")),
        "+ audit to Redis Stream (batched)": AuditLog(redis=RedisStreamSink(link, prefix + "s")),
    }
    out: dict[str, float] = {}
    for name, audit in pieces.items():
        await audit.start()
        recorder = ResponseRecorder(metrics, audit)
        start = time.process_time()
        for i in range(n):
            recorder.record_response(ResponseOutcome(f"r{i}", None, "gpt-x", report))
            if i % 20 == 0:
                await asyncio.sleep(0)  # let the flusher run, as requests would
        if audit.redis is not None:
            await audit.redis.flush(timeout=30)
        out[name] = (time.process_time() - start) / n * 1000
        await audit.aclose()
    await link.aclose()
    return out


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


async def main(requests: int, rounds: int) -> None:
    prefix = f"vpbench:{uuid.uuid4().hex[:8]}:"
    with tempfile.TemporaryDirectory() as tmp:
        redis_config = {"url": REDIS_URL, "prefix": prefix}
        on_config = {
            "redis": redis_config,
            "audit": {"jsonl": str(Path(tmp) / "audit.jsonl"), "redis_stream": prefix + "audit"},
        }
        limit_config = {
            "redis": redis_config,
            "rate_limits": {"default": {"requests": 10**9, "tokens": 10**12}},
        }
        samples: dict[str, list[float]] = {"off": [], "on": [], "limit": []}
        cpu: dict[str, float] = {}
        async with (
            running({}, record=False) as off,
            running(on_config, record=True) as on,
            running(limit_config, record=False) as limit,
        ):
            apps = (("off", off), ("on", on), ("limit", limit))
            for _, client in apps:
                await timed(client, 50)  # warm-up: connection pools, first-call imports
            for r in range(rounds):
                # Rotate the order each round: the app measured first after another pays for
                # some of the other's leftovers, so every app takes every position.
                for name, client in apps[r % 3 :] + apps[: r % 3]:
                    samples[name] += await timed(client, requests, cpu, name)
                print(f"[bench] round {r + 1}/{rounds} done", flush=True)
        pieces = await component_cpu(requests * rounds, tmp, prefix)
    cleanup = redis.Redis.from_url(REDIS_URL)
    keys = list(cleanup.scan_iter(match=prefix + "*"))
    if keys:
        cleanup.delete(*keys)
    cleanup.close()
    middleware = middleware_metrics_cost(requests * rounds)
    print(f"\nnon-streaming passthrough, {requests * rounds} requests per app, in-process ASGI")
    print(f"{'app':<44}{'p50 ms':>10}{'p95 ms':>10}{'CPU ms/req':>12}")
    for name, label in (
        ("off", "off (defaults)"),
        ("on", "on (recorder metrics, JSONL + Redis audit)"),
        ("limit", "rate limit only (Redis, not in target)"),
    ):
        per_request = cpu[name] / len(samples[name]) * 1000
        print(
            f"{label:<44}{pct(samples[name], 50):>10.3f}{pct(samples[name], 95):>10.3f}"
            f"{per_request:>12.3f}"
        )
    mw = pct(middleware, 50)
    print(f"{'request metrics (timed directly)':<44}{mw:>10.4f}{pct(middleware, 95):>10.4f}")
    overhead = pct(samples["on"], 50) - pct(samples["off"], 50) + mw
    cpu_overhead = (cpu["on"] - cpu["off"]) / len(samples["on"]) * 1000 + mw
    verdict = "OK" if overhead <= 0.2 else "OVER"
    print(f"\nmetrics + audit overhead p50: {overhead:.3f} ms (target <= 0.2 ms): {verdict}")
    print(f"metrics + audit CPU per request (same run): {cpu_overhead:.3f} ms")
    print("\nCPU per response of each piece alone:")
    base = pieces["recorder metrics (5 sentences)"]
    for name, ms in pieces.items():
        extra = ms - base if name.startswith("+") else ms
        print(f"  {name:<40}{extra:>8.3f} ms")
    print(f"  {'request metrics (middleware)':<40}{mw:>8.3f} ms")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="requests per app per round")
    parser.add_argument("--rounds", type=int, default=6, help="a multiple of 3 is fairest")
    args = parser.parse_args()
    if not 1 <= args.requests * args.rounds <= MAX_REQUESTS:
        parser.error(f"requests x rounds must be between 1 and {MAX_REQUESTS}")
    asyncio.run(main(args.requests, args.rounds))
