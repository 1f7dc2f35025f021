"""Through a running proxy: Redis is killed and restarted mid-traffic; every request is still
served, the fallbacks are counted, and no audit record is lost from the stream or the file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import redis

from proxy.audit import ResponseRecorder, verify_file
from proxy.cli import main
from proxy.extensions import Extensions, RequestContext
from proxy.outcome import ResponseOutcome
from tests.proxy.redis_helpers import private_redis
from tests.proxy.report_factory import report, sentence
from tests.proxy.test_metrics import value
from verifiers import Verdict

STREAM = "veriproxy:audit"


class RecordEveryResponse:
    """Stands in for the verifier: records one fixed report per response."""

    def __init__(self) -> None:
        self.recorder: ResponseRecorder | None = None

    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        assert self.recorder is not None
        final = report((sentence(0, Verdict.SUPPORTED, 2, pmids=("111",)),))
        self.recorder.record_response(ResponseOutcome(ctx.request_id, None, ctx.model, final))
        return completion


def test_redis_restart_mid_traffic_loses_no_audit_record(proxy_factory, tmp_path: Path) -> None:
    with private_redis(tmp_path) as server:
        hook = RecordEveryResponse()
        proxy = proxy_factory(
            {
                "redis": {"url": server.url, "socket_timeout": 0.2, "retry_after": 0.2},
                "rate_limits": {"default": {"requests": 10_000}},
                "audit": {"redis_stream": STREAM, "jsonl": str(tmp_path / "audit.jsonl")},
            },
            extensions=Extensions(finalisers=(hook,)),
        )
        hook.recorder = proxy.app.state.recorder
        metrics = proxy.app.state.metrics
        sink = proxy.app.state.shared.audit.redis
        body = {"model": "gpt-x", "messages": [{"role": "user", "content": "Q?"}]}
        statuses: list[int] = []
        with httpx.Client(base_url=proxy.url, timeout=10) as client:

            def traffic(n: int) -> None:
                statuses.extend(
                    client.post("/v1/chat/completions", json=body).status_code for _ in range(n)
                )

            traffic(15)
            server.kill()
            traffic(15)
            assert sink.pending > 0
            assert value(metrics, "veriproxy_audit_pending_records") > 0
            server.start()
            traffic(15)
            deadline = time.monotonic() + 20
            while sink.pending and time.monotonic() < deadline:
                time.sleep(0.05)
        assert statuses == [200] * 45
        assert sink.pending == 0
        assert value(metrics, "veriproxy_redis_degraded_total", operation="ratelimit") > 0
        assert value(metrics, "veriproxy_redis_degraded_total", operation="audit") > 0
        assert value(metrics, "veriproxy_audit_dropped_total") == 0
        assert main(["audit", "verify", "--redis", server.url, "--stream", STREAM]) == 0
        file_report = verify_file(tmp_path / "audit.jsonl")
        assert (file_report.ok, file_report.count) == (True, 45)
        direct = redis.Redis.from_url(server.url)
        assert direct.xlen(STREAM) == 45
        direct.close()
