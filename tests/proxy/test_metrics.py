"""The metric catalogue: report counting, bounded labels, request metrics through the real
proxy, and multiprocess mode across worker processes."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from policies import ReportStatus
from proxy.audit import AuditLog, JsonlSink, ResponseRecorder, read_entries
from proxy.auth import FileKeyStore, new_key
from proxy.errors import UpstreamHTTPError, UpstreamProtocolError, UpstreamTimeout
from proxy.metrics import (
    JUDGE_CACHE,
    RATE_LIMITS,
    REDIS_OPERATIONS,
    RELOAD_RESULTS,
    UPSTREAM_ERROR_KINDS,
    VERIFIER_ERROR_KINDS,
    Metrics,
    upstream_error_kind,
)
from proxy.outcome import ResponseOutcome, StageTimings
from proxy.testing.server_thread import RunningEmulator
from tests.conftest import ProxyFactory
from tests.proxy.report_factory import report, sentence
from verifiers import QuoteCheck, QuoteStatus, Verdict

PROXY = Path(__file__).resolve().parents[2] / "proxy"


def samples(metrics: Metrics, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Current values of one sample name, keyed by sorted labels."""
    text = metrics.render().decode()
    return {
        tuple(sorted(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == name
    }


def value(metrics: Metrics, name: str, **labels: str) -> float:
    return samples(metrics, name).get(tuple(sorted(labels.items())), 0.0)


REPORT = report(
    (
        replace(
            sentence(0, Verdict.SUPPORTED, 3, cited=(("1", True),)),
            quotes=(QuoteCheck("1", "words", QuoteStatus.FOUND),),
        ),
        replace(
            sentence(1, Verdict.CONTRADICTED, 5, cited=(("2", True),)),
            quotes=(
                QuoteCheck("2", "other words", QuoteStatus.MISQUOTE),
                QuoteCheck("2", "more words", QuoteStatus.MISQUOTE),
            ),
        ),
        sentence(2, Verdict.INVALID_CITATION, 4, cited=(("9", False), ("8", False))),
        sentence(3, Verdict.NOT_CHECKWORTHY, 1),
    ),
    status=ReportStatus.FLAGGED,
    risk=0.42,
    policy="clinical",
)


def test_record_response_counts_sentences_outcome_risk_and_citations(tmp_path: Path) -> None:
    metrics = Metrics(routes=(), models=["gpt-x"], tenants=["acme"])
    audit = AuditLog(jsonl=JsonlSink(tmp_path / "audit.jsonl"))
    recorder = ResponseRecorder(metrics, audit)
    timings = StageTimings(retrieval_ms=12.5, verification_ms=40.0)
    recorder.record_response(ResponseOutcome("r1", "acme", "gpt-x", REPORT, timings=timings))
    recorder.record_response(ResponseOutcome("r2", "zeta", "made-up", REPORT, timings=timings))
    audit.jsonl.close()  # type: ignore[union-attr]

    mine = {"model": "gpt-x", "tenant": "acme"}
    name = "veriproxy_sentences_total"
    assert value(metrics, name, verdict="supported", harm="3", **mine) == 1
    assert value(metrics, name, verdict="contradicted", harm="5", **mine) == 1
    assert value(metrics, name, verdict="invalid_citation", harm="4", **mine) == 1
    assert value(metrics, name, verdict="supported", harm="5", **mine) == 0  # zero-initialised
    other = {"model": "other", "tenant": "other"}  # unconfigured names never become labels
    assert value(metrics, name, verdict="contradicted", harm="5", **other) == 1
    assert value(metrics, "veriproxy_fabricated_citations_total", **mine) == 2
    assert (
        value(
            metrics,
            "veriproxy_responses_total",
            outcome="flagged",
            policy="clinical",
            **mine,
        )
        == 1
    )
    assert value(metrics, "veriproxy_risk_score_bucket", le="0.4", **mine) == 0
    assert value(metrics, "veriproxy_risk_score_bucket", le="0.5", **mine) == 1
    assert value(metrics, "veriproxy_stage_duration_seconds_count", stage="retrieval") == 2
    assert value(metrics, "veriproxy_stage_duration_seconds_sum", stage="verification") == 0.08
    labels = {dict(k).get("model") for k in samples(metrics, name)}
    assert labels == {"gpt-x", "other"}
    quoted = "veriproxy_quoted_citations_total"
    assert value(metrics, quoted, status="found", **mine) == 1
    assert value(metrics, quoted, status="misquote", **mine) == 2
    assert value(metrics, quoted, status="other_abstract", **mine) == 0

    records = [e["record"] for e in read_entries(tmp_path / "audit.jsonl")]
    assert [(r["request_id"], r["tenant"], r["model"]) for r in records] == [
        ("r1", "acme", "gpt-x"),
        ("r2", "zeta", "made-up"),
    ]


def test_state_events_reach_their_families() -> None:
    metrics = Metrics(routes=(), models=())
    metrics.on_cache_lookup("verification", True)
    metrics.on_cache_lookup("verification", False)
    metrics.on_redis_degraded("audit")
    metrics.on_audit_pending(7)
    metrics.on_audit_dropped()
    assert value(metrics, "veriproxy_cache_requests_total", cache="verification", result="hit") == 1
    assert value(metrics, "veriproxy_redis_degraded_total", operation="audit") == 1
    assert value(metrics, "veriproxy_audit_pending_records") == 7
    assert value(metrics, "veriproxy_audit_dropped_total") == 1


def test_upstream_error_kinds() -> None:
    assert upstream_error_kind(UpstreamTimeout("t")) == "timeout"
    assert upstream_error_kind(UpstreamHTTPError(429, "slow down")) == "http_4xx"
    assert upstream_error_kind(UpstreamHTTPError(503, "down")) == "http_5xx"
    assert upstream_error_kind(UpstreamProtocolError("bad")) == "stream"
    assert upstream_error_kind(UpstreamHTTPError(500, "x"), mid_stream=True) == "stream"
    assert upstream_error_kind(OSError("refused")) == "connect"
    kinds = {
        upstream_error_kind(exc, mid)
        for exc in (UpstreamTimeout("t"), UpstreamHTTPError(429, "x"), OSError("refused"))
        for mid in (False, True)
    } | {upstream_error_kind(UpstreamHTTPError(503, "x"))}
    assert kinds == set(UPSTREAM_ERROR_KINDS)


def test_event_counters_start_at_zero_before_any_event(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory(
        {"models": {"gpt-x": {"base_url": emulator.base_url}}, "metrics": {"tenants": ["acme"]}}
    )
    text = httpx.get(f"{proxy.url}/metrics", timeout=10).text
    expected = [
        *(
            ("veriproxy_upstream_errors_total", {"kind": kind, "model": model})
            for kind in ("timeout", "connect", "http_4xx", "http_5xx", "stream")
            for model in ("gpt-x", "other")
        ),
        *(
            ("veriproxy_rate_limited_total", {"tenant": tenant, "limit": limit})
            for tenant in ("acme", "anonymous", "other")
            for limit in ("requests", "tokens")
        ),
        *(("veriproxy_verifier_errors_total", {"kind": k}) for k in ("timeout", "exception")),
        *(
            ("veriproxy_redis_degraded_total", {"operation": op})
            for op in ("cache", "ratelimit", "audit", "notify")
        ),
        ("veriproxy_policy_reloads_total", {"result": "rejected"}),
    ]
    names = {name for name, _ in expected}
    exposed = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name in names
    }
    # Every known series at 0, and no other (no unconfigured model, no unlisted tenant).
    assert exposed == {(name, tuple(sorted(labels.items()))): 0.0 for name, labels in expected}


def test_judge_series_start_at_zero() -> None:
    """Every judge counter series whose label values are known at start exists at 0, the
    escalation rules being the configured ones; the latency histogram exists unlabelled."""
    metrics = Metrics(routes=(), models=(), judge_rules=["low_confidence", "high_harm"])
    expected = {
        "veriproxy_judge_escalations_total": ("reason", ("high_harm", "low_confidence")),
        "veriproxy_judge_skipped_total": ("reason", ("budget", "max_claims")),
        "veriproxy_judge_requests_total": (
            "outcome",
            ("ok", "timeout", "unreachable", "malformed"),
        ),
        "veriproxy_judge_tokens_total": ("kind", ("prompt", "completion")),
        "veriproxy_judge_verdicts_total": (
            "outcome",
            (
                "agree",
                "overturn",
                "quote_rejected",
                "quote_irrelevant",
                "check_failed",
                "quote_contradicts",
            ),
        ),
    }
    for name, (label, values) in expected.items():
        assert samples(metrics, name) == {((label, v),): 0.0 for v in values}, name
    assert value(metrics, "veriproxy_judge_request_duration_seconds_count") == 0
    assert value(metrics, "veriproxy_judge_request_duration_seconds_bucket", le="30.0") == 0
    # Without configured rules no escalation series is invented.
    assert samples(Metrics(routes=(), models=()), "veriproxy_judge_escalations_total") == {}


def test_judge_events_reach_their_families() -> None:
    """The attributes the judge cascade increments directly."""
    metrics = Metrics(routes=(), models=(), judge_rules=["high_harm"])
    metrics.judge_escalations.labels("high_harm").inc(3)
    metrics.judge_skipped.labels("max_claims").inc()
    metrics.judge_requests.labels("timeout").inc()
    metrics.judge_latency.observe(12.5)
    metrics.judge_tokens.labels("prompt").inc(900)
    metrics.judge_tokens.labels("completion").inc(40)
    metrics.judge_verdicts.labels("quote_rejected").inc()
    metrics.on_cache_lookup(JUDGE_CACHE, False)
    assert value(metrics, "veriproxy_judge_escalations_total", reason="high_harm") == 3
    assert value(metrics, "veriproxy_judge_skipped_total", reason="max_claims") == 1
    assert value(metrics, "veriproxy_judge_skipped_total", reason="budget") == 0
    assert value(metrics, "veriproxy_judge_requests_total", outcome="timeout") == 1
    assert value(metrics, "veriproxy_judge_request_duration_seconds_bucket", le="10.0") == 0
    assert value(metrics, "veriproxy_judge_request_duration_seconds_bucket", le="15.0") == 1
    assert value(metrics, "veriproxy_judge_request_duration_seconds_sum") == 12.5
    assert value(metrics, "veriproxy_judge_tokens_total", kind="prompt") == 900
    assert value(metrics, "veriproxy_judge_tokens_total", kind="completion") == 40
    assert value(metrics, "veriproxy_judge_verdicts_total", outcome="quote_rejected") == 1
    assert value(metrics, "veriproxy_cache_requests_total", cache="judge", result="miss") == 1


def _literals(pattern: str, *files: str) -> set[str]:
    paths = [p for f in files for p in sorted(PROXY.glob(f))]
    assert paths, files
    return {m for p in paths for m in re.findall(pattern, p.read_text(encoding="utf-8"))}


@pytest.mark.parametrize(
    ("zeroed", "emitted"),
    [
        # RedisLink.call("operation", ...) and the notice listener's direct report.
        (
            REDIS_OPERATIONS,
            _literals(r'(?:\.call|on_redis_degraded)\(\s*"(\w+)"', "**/*.py"),
        ),
        (VERIFIER_ERROR_KINDS, _literals(r'self\._fail\("(\w+)"', "verification/session.py")),
        (RATE_LIMITS, _literals(r'Admission\(False, "(\w+)"', "state/ratelimit.py")),
        (RELOAD_RESULTS, _literals(r'policy_reloads\.labels\("(\w+)"\)', "*.py")),
    ],
    ids=["redis", "verifier", "rate-limit", "reload"],
)
def test_zeroed_label_values_are_the_ones_the_proxy_emits(
    zeroed: tuple[str, ...], emitted: set[str]
) -> None:
    """A new label value at a call site must be added to the zeroed ones, and a zeroed value
    must still be emitted somewhere (no invented series)."""
    assert set(zeroed) == emitted


def test_request_metrics_through_the_proxy(proxy) -> None:
    with httpx.Client(base_url=proxy.url) as client:
        response = client.post(
            "/v1/chat/completions",
            json={"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]},
        )
        assert response.status_code == 200
        text = client.get("/metrics").text
    metrics = proxy.app.state.metrics
    assert (
        value(
            metrics,
            "veriproxy_requests_total",
            route="/v1/chat/completions",
            model="other",
            tenant="anonymous",
            status="200",
        )
        == 1
    )
    assert value(metrics, "veriproxy_inflight_requests", route="/v1/chat/completions") == 0
    assert value(metrics, "veriproxy_stage_duration_seconds_count", stage="upstream_total") == 1
    assert 'veriproxy_inflight_requests{route="/metrics"} 1.0' in text  # the scrape itself


WORKER = """
import sys
from proxy.metrics import Metrics
m = Metrics(routes=(), models=["gpt-x"])
m.requests.labels("/v1/chat/completions", "gpt-x", "anonymous", "200").inc(int(sys.argv[1]))
m.inflight.labels("/v1/chat/completions").inc()
if sys.argv[2] == "exit-cleanly":
    m.close()
"""


def test_multiprocess_mode_sums_workers(tmp_path: Path) -> None:
    env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    root = Path(__file__).resolve().parents[2]
    for n, how in ((2, "exit-cleanly"), (3, "still-running")):
        subprocess.run(
            [sys.executable, "-c", WORKER, str(n), how], env=env, cwd=root, check=True, timeout=60
        )
    metrics = Metrics(routes=(), models=["gpt-x"], multiprocess_dir=str(tmp_path))
    labels = dict(route="/v1/chat/completions", model="gpt-x", tenant="anonymous", status="200")
    assert value(metrics, "veriproxy_requests_total", **labels) == 5
    # Counters keep a retired worker's counts; live gauges only sum workers not retired.
    assert value(metrics, "veriproxy_inflight_requests", route="/v1/chat/completions") == 1


async def test_tenant_labels_follow_proxy_keys(proxy_factory, tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys.json")
    keys = {}
    for tenant in ("acme", "zeta"):
        keys[tenant], record = new_key(tenant)
        await store.put(record)
    proxy = proxy_factory(
        {"auth": {"store": str(tmp_path / "keys.json")}, "metrics": {"tenants": ["acme"]}}
    )
    body = {"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(base_url=proxy.url) as client:
        for tenant in ("acme", "zeta"):
            headers = {"Authorization": f"Bearer {keys[tenant]}"}
            response = await client.post("/v1/chat/completions", json=body, headers=headers)
            assert response.status_code == 200
    metrics = proxy.app.state.metrics
    route = {"route": "/v1/chat/completions", "model": "other", "status": "200"}
    assert value(metrics, "veriproxy_requests_total", tenant="acme", **route) == 1
    assert value(metrics, "veriproxy_requests_total", tenant="other", **route) == 1  # zeta
    assert "zeta" not in metrics.render().decode()
