"""Debian's real Prometheus scrapes a running proxy on loopback; the dashboard's hallucination
rate, queried from Prometheus, equals the share of hallucinated sentences in scripted traffic."""

from __future__ import annotations

import math
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from policies import DecidedReport, ReportStatus
from proxy.audit import ResponseRecorder
from proxy.extensions import Extensions, RequestContext
from proxy.outcome import ResponseOutcome
from tests.proxy.redis_helpers import free_port
from tests.proxy.report_factory import report, sentence
from verifiers import Verdict

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
RULES = Path(__file__).resolve().parents[2] / "dashboards" / "rules" / "recording.yml"
CATALOGUE_EXPR = (
    'sum(rate(veriproxy_sentences_total{verdict=~"contradicted|unsupported|invalid_citation"}'
    '[5m])) / sum(rate(veriproxy_sentences_total{verdict!="not_checkworthy"}[5m]))'
)

pytestmark = pytest.mark.skipif(
    not Path(PROMETHEUS).exists(),
    reason="Prometheus binary absent (apt-get install prometheus; scripts/services.sh does it)",
)

V = Verdict
# Per response: the verdicts of its sentences. 7 of 23 check-worthy sentences hallucinated.
SCRIPT: list[tuple[Verdict, ...]] = [
    (V.SUPPORTED, V.SUPPORTED, V.NOT_CHECKWORTHY),
    (V.SUPPORTED, V.CONTRADICTED, V.UNSUPPORTED),
    (V.PARTIALLY_SUPPORTED, V.UNCITED, V.NOT_CHECKWORTHY, V.NOT_CHECKWORTHY),
    (V.INVALID_CITATION, V.SUPPORTED, V.SUPPORTED),
    (V.UNSUPPORTED, V.UNSUPPORTED, V.SUPPORTED, V.NOT_CHECKWORTHY),
    (V.SUPPORTED, V.SUPPORTED, V.SUPPORTED, V.PARTIALLY_SUPPORTED),
    (V.CONTRADICTED, V.UNSUPPORTED, V.UNCITED, V.NOT_CHECKWORTHY, V.NOT_CHECKWORTHY),
    (V.SUPPORTED, V.PARTIALLY_SUPPORTED, V.SUPPORTED),
]
HALLUCINATED = {V.CONTRADICTED, V.UNSUPPORTED, V.INVALID_CITATION}


def dashboard_expression() -> str:
    """The recording rule's expression from dashboards/, else the agreed catalogue's."""
    if RULES.exists():
        for group in yaml.safe_load(RULES.read_text())["groups"]:
            for rule in group["rules"]:
                if rule.get("record") == "veriproxy:hallucination_rate:ratio_rate5m":
                    return str(rule["expr"])
    return CATALOGUE_EXPR


class ScriptedReports:
    """Stands in for the verifier: the n-th response gets the n-th scripted report and is
    recorded through the real ResponseRecorder (metrics of the running app)."""

    def __init__(self) -> None:
        self.recorder: ResponseRecorder | None = None
        self._next = 0

    async def finalise(self, completion: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        assert self.recorder is not None
        verdicts = SCRIPT[self._next % len(SCRIPT)]
        self._next += 1
        final: DecidedReport = report(
            tuple(sentence(i, v, harm=1 + i % 5) for i, v in enumerate(verdicts)),
            status=ReportStatus.FLAGGED if HALLUCINATED & set(verdicts) else ReportStatus.VERIFIED,
            risk=0.5,
        )
        self.recorder.record_response(
            ResponseOutcome(request_id=ctx.request_id, tenant=None, model=ctx.model, report=final)
        )
        return completion


@pytest.fixture
def prometheus_for(tmp_path: Path) -> Iterator[Any]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(target: str) -> str:
        port = free_port()
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [
                {"job_name": "veriproxy", "static_configs": [{"targets": [target]}]}
            ],
        }
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
        with (tmp_path / "prometheus.log").open("wb") as log:  # the child keeps its own fd
            procs.append(
                subprocess.Popen(
                    [
                        PROMETHEUS,
                        f"--config.file={tmp_path / 'prometheus.yml'}",
                        f"--storage.tsdb.path={tmp_path / 'data'}",
                        f"--web.listen-address=127.0.0.1:{port}",
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        return f"http://127.0.0.1:{port}"

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=20)


class NotReady(Exception):
    """Prometheus answers 503 'Service Unavailable' (plain text) until its TSDB has opened."""


def query(client: httpx.Client, expr: str) -> list[dict[str, Any]]:
    response = client.get("/api/v1/query", params={"query": expr})
    if response.status_code == 503:
        raise NotReady(response.text)
    answer = response.json()
    assert answer["status"] == "success", answer
    return list(answer["data"]["result"])


def wait_for(client: httpx.Client, expr: str, expected: float, timeout: float = 40) -> None:
    deadline = time.monotonic() + timeout
    seen: Any = None
    while time.monotonic() < deadline:
        try:
            seen = query(client, expr)
        except (httpx.TransportError, NotReady):
            seen = "prometheus not up yet"
        else:
            if seen and float(seen[0]["value"][1]) == expected:
                return
        time.sleep(0.25)
    raise AssertionError(f"{expr} never reached {expected}; last: {seen}")


def test_dashboard_hallucination_rate_from_real_prometheus(
    proxy_factory, emulator, prometheus_for
) -> None:
    scripted = ScriptedReports()
    proxy = proxy_factory(
        {"models": {"gpt-x": {"base_url": emulator.base_url}}},
        extensions=Extensions(finalisers=(scripted,)),
    )
    scripted.recorder = ResponseRecorder(proxy.app.state.metrics)
    prom = prometheus_for(proxy.url.removeprefix("http://"))
    with (
        httpx.Client(base_url=prom, timeout=5) as client,
        httpx.Client(base_url=proxy.url, timeout=10) as app,
    ):
        wait_for(client, 'up{job="veriproxy"}', 1)
        # Two scrapes of the zero-initialised series before any traffic.
        wait_for(client, "count_over_time(up[1m]) >= 2", 2, timeout=20)
        for _ in range(len(SCRIPT)):
            body = {"model": "gpt-x", "messages": [{"role": "user", "content": "Q?"}]}
            assert app.post("/v1/chat/completions", json=body).status_code == 200
        total = sum(len(v) for v in SCRIPT)
        wait_for(client, "sum(veriproxy_sentences_total)", total)
        checkworthy = [v for vs in SCRIPT for v in vs if v is not V.NOT_CHECKWORTHY]
        expected = sum(v in HALLUCINATED for v in checkworthy) / len(checkworthy)
        assert expected == 7 / 23
        rate = query(client, dashboard_expression())
        assert len(rate) == 1
        assert float(rate[0]["value"][1]) == pytest.approx(expected, rel=1e-9)
        by_model = query(client, dashboard_expression().replace("sum(", "sum by (model) ("))
        rates = {r["metric"]["model"]: float(r["value"][1]) for r in by_model}
        assert rates["gpt-x"] == pytest.approx(expected, rel=1e-9)
        assert math.isnan(rates["other"])  # zero-initialised, no traffic: 0/0
