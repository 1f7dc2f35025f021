"""One heavy request must not stall the others, and nothing a client or an upstream sends may
hold the proxy without bound. Through the real proxy:

* ``/healthz`` answers within 1 s (a loose responsiveness bound, not a benchmark) while a
  ``/v1/verify`` with ~1 MB of real abstracts, or a chat with 50 client documents of 20 KB,
  builds its evidence;
* a ``/v1/verify`` answer too long to judge in ``verification.timeout_seconds`` stops there with
  an ``unverified`` report that says how far it got;
* a hostile upstream cannot hold a stream open with keep-alives (``limits.stream_seconds``),
  cannot make the proxy buffer one endless SSE event (``limits.max_event_bytes``; RSS bounded
  loosely), and cannot keep a gate-mode answer from the client by never ending a sentence
  (``verification.max_sentence_chars``).
"""

from __future__ import annotations

import asyncio
import json
import resource
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import ProxyFactory
from tests.proxy.hostile_upstream import chunk, hostile_upstream
from tests.proxy.routes.test_verify_route import model_dir  # noqa: F401 -- the tiny NLI model fixture

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scifact_excerpt.jsonl"


def _real_text(chars: int) -> str:
    """Real abstract text (SciFact excerpt) repeated to ``chars`` characters."""
    records = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line]
    text = " ".join(" ".join(r["abstract"]) for r in records)
    return (text * (chars // len(text) + 1))[:chars]


def _verifying(model: Path, **extra: Any) -> dict[str, Any]:
    return {
        "verification": {
            "enabled": True,
            "verifier": {"nli": {"name": "hf", "model": str(model), "threads": 1}},
            **extra,
        }
    }


def _healthz_while(send: Callable[[], httpx.Response], base: str) -> tuple[float, httpx.Response]:
    """Start ``send`` in a thread; once it is under way, time one ``/healthz``. Returns that
    latency and ``send``'s response (asserting it was still running when /healthz answered)."""
    result: list[httpx.Response] = []
    worker = threading.Thread(target=lambda: result.append(send()), daemon=True)
    worker.start()
    time.sleep(0.5)
    started = time.perf_counter()
    health = httpx.get(f"{base}/healthz", timeout=30)
    latency = time.perf_counter() - started
    assert health.status_code == 200
    assert worker.is_alive(), "the heavy request finished before /healthz was asked"
    worker.join(120)
    return latency, result[0]


def test_healthz_answers_while_verify_builds_heavy_evidence(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
) -> None:
    proxy = proxy_factory(_verifying(model_dir))
    base = proxy.base_url.removesuffix("/v1")
    abstract = _real_text(9_500)
    body = {
        "answer": "Prion protein was found in appendix samples [PMID:1].",
        "evidence": [{"pmid": str(i), "abstract": abstract} for i in range(1, 101)],
    }
    latency, resp = _healthz_while(
        lambda: httpx.post(f"{proxy.base_url}/verify", json=body, timeout=120), base
    )
    assert latency < 1.0
    assert resp.status_code == 200, resp.text


def test_evidence_over_the_limit_is_refused(proxy_factory: ProxyFactory) -> None:
    proxy = proxy_factory({"limits": {"max_evidence_chars": 1000}})
    body = {"answer": "A claim.", "evidence": [{"pmid": "1", "abstract": "x" * 1001}]}
    resp = httpx.post(f"{proxy.base_url}/verify", json=body, timeout=30)
    assert resp.status_code == 413
    assert resp.json()["error"]["code"] == "evidence_too_large"


def test_healthz_answers_while_a_chat_builds_50_client_documents(
    proxy_factory: ProxyFactory,
) -> None:
    proxy = proxy_factory()
    base = proxy.base_url.removesuffix("/v1")
    documents = [{"text": _real_text(20_000)} for _ in range(50)]
    body = {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "What was found in appendix samples?"}],
        "veriproxy": {"documents": documents},
    }
    latency, resp = _healthz_while(
        lambda: httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=120), base
    )
    assert latency < 1.0
    assert resp.status_code == 200, resp.text


def test_verify_stops_at_its_deadline_with_an_unverified_report(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
) -> None:
    proxy = proxy_factory(_verifying(model_dir, timeout_seconds=0.2))
    sentences = [f"Metformin lowers HbA1c by {i} percent in adults [PMID:1]." for i in range(2000)]
    body = {
        "answer": " ".join(sentences),
        "evidence": [{"pmid": "1", "abstract": _real_text(3000)}],
    }
    resp = httpx.post(f"{proxy.base_url}/verify", json=body, timeout=120)
    assert resp.status_code == 200, resp.text
    report = resp.json()
    assert "did not finish within 0.2 s" in (report["error"] or "")
    assert len(report["sentences"]) < 2000


def _stream(proxy_url: str, body: dict[str, Any], *, seconds: float) -> tuple[str, float]:
    """The stream's text as far as it got in ``seconds``, and how long it ran."""
    started = time.perf_counter()
    text = ""
    try:
        with httpx.stream(
            "POST", f"{proxy_url}/chat/completions", json=body, timeout=seconds
        ) as resp:
            for piece in resp.iter_text():
                text += piece
                if time.perf_counter() - started > seconds:
                    break
    except httpx.TimeoutException:
        pass
    return text, time.perf_counter() - started


def test_keep_alive_only_upstream_hits_the_stream_deadline(proxy_factory: ProxyFactory) -> None:
    async def keep_alives() -> AsyncIterator[bytes]:
        yield chunk("Hello")
        while True:
            yield b": keep-alive\n\n"
            await asyncio.sleep(0.05)

    with hostile_upstream() as (upstream, base_url):
        upstream.answer(keep_alives)
        proxy = proxy_factory(
            {"default_upstream": {"base_url": base_url}, "limits": {"stream_seconds": 1}}
        )
        body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
        text, _ = _stream(proxy.base_url, {**body, "stream": True}, seconds=15)
    assert '"stream_timeout"' in text
    assert text.rstrip().endswith("data: [DONE]")


def test_endless_sse_event_is_cut_and_memory_stays_bounded(proxy_factory: ProxyFactory) -> None:
    piece = b"a" * 65536

    async def endless_event() -> AsyncIterator[bytes]:
        yield b'data: {"choices": [{"index": 0, "delta": {"content": "'
        for _ in range(1024):  # 64 MB, never terminated
            yield piece

    with hostile_upstream() as (upstream, base_url):
        upstream.answer(endless_event)
        proxy = proxy_factory({"default_upstream": {"base_url": base_url}})
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
        text, _ = _stream(proxy.base_url, {**body, "stream": True}, seconds=60)
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert "over the limit of" in text
    assert text.rstrip().endswith("data: [DONE]")
    assert grown_mb < 300, f"peak RSS grew {grown_mb:.0f} MB"


def test_gate_mode_releases_an_answer_that_never_ends_a_sentence(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
) -> None:
    async def no_sentence_end() -> AsyncIterator[bytes]:
        while True:
            yield chunk("metformin lowers hba1c ")
            await asyncio.sleep(0.001)

    with hostile_upstream() as (upstream, base_url):
        upstream.answer(no_sentence_end)
        proxy = proxy_factory(
            {
                "default_upstream": {"base_url": base_url},
                **_verifying(model_dir, max_sentence_chars=200),
            }
        )
        body = {
            "model": "gpt-test",
            "stream": True,
            "messages": [{"role": "user", "content": "hi"}],
            "veriproxy": {"policy": "clinical-strict"},  # gate mode
        }
        released = ""
        started = time.perf_counter()
        with httpx.stream(
            "POST", f"{proxy.base_url}/chat/completions", json=body, timeout=20
        ) as resp:
            for line in resp.iter_lines():
                if line.startswith("data: {"):
                    data = json.loads(line[6:])
                    for choice in data.get("choices") or ():
                        released += (choice.get("delta") or {}).get("content") or ""
                if "metformin" in released or time.perf_counter() - started > 20:
                    break
    assert "metformin" in released
