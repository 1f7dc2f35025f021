"""/healthz, /readyz with readiness checks, and bounded metric labels on /metrics."""

from __future__ import annotations

import httpx

from proxy.testing.server_thread import RunningEmulator, RunningProxy


def test_ready_when_checks_pass(proxy: RunningProxy) -> None:
    assert httpx.get(f"{proxy.url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{proxy.url}/readyz").json() == {"status": "ready"}


def test_not_ready_names_the_reason(proxy_factory) -> None:
    async def index_loading() -> str | None:
        return "evidence index loading"

    async def fine() -> str | None:
        return None

    proxy = proxy_factory(readiness_checks=[fine, index_loading])
    response = httpx.get(f"{proxy.url}/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "not_ready", "reasons": ["evidence index loading"]}


def test_metric_labels_stay_bounded(proxy_factory, emulator: RunningEmulator) -> None:
    proxy = proxy_factory({"models": {"known": {"base_url": emulator.base_url}}})
    for model in ("known", "client-invented-name-1", "client-invented-name-2"):
        body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
        assert httpx.post(f"{proxy.base_url}/chat/completions", json=body).status_code == 200
    httpx.get(f"{proxy.base_url}/no/such/route")
    text = httpx.get(f"{proxy.url}/metrics").text
    requests = [line for line in text.splitlines() if line.startswith("veriproxy_requests_total{")]
    assert any('model="known"' in line for line in requests)
    assert any('model="other"' in line for line in requests)
    assert "client-invented-name" not in text
    assert "/no/such/route" not in text
    assert "veriproxy_request_duration_seconds_bucket" in text
