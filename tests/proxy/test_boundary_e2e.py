"""The request boundary through the real proxy: fields the proxy enforces are typed strictly,
lone surrogates (valid JSON, invalid Unicode) from a client or an upstream never turn into a
500 or a missing audit record, and a client that aborts while sending its body is a 499 in the
metrics, not a 500 with tracebacks."""

from __future__ import annotations

import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.testing.server_thread import RunningProxy
from tests.conftest import ProxyFactory
from tests.proxy.hostile_upstream import chunk, completion, hostile_upstream, sse
from tests.proxy.routes.test_verify_route import model_dir  # noqa: F401 -- the tiny NLI model fixture

SURROGATE = "\\ud800"  # as it travels in JSON text


def _with_surrogates(body: dict[str, Any]) -> bytes:
    """``body`` as JSON text, every ``@`` in its strings written as a lone surrogate escape."""
    return json.dumps(body).replace("@", SURROGATE).encode()


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}], **extra}


@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
@pytest.mark.parametrize("value", ["100000", 1e9, True, 100.0, [1]])
def test_max_tokens_must_be_an_integer(
    proxy_factory: ProxyFactory, field: str, value: object
) -> None:
    proxy = proxy_factory({"limits": {"max_tokens": 100}})
    resp = httpx.post(f"{proxy.base_url}/chat/completions", json=_chat(**{field: value}))
    assert resp.status_code == 400, resp.text
    assert resp.json()["error"]["param"] == field


def _verifying(model: Path, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "verification": {
            "enabled": True,
            "verifier": {"nli": {"name": "hf", "model": str(model), "threads": 1}},
        },
        "audit": {"jsonl": str(tmp_path / "audit.jsonl"), "include_text": True},
        **extra,
    }


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "audit.jsonl"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return [json.loads(line) for line in path.read_text().splitlines() if line]
        time.sleep(0.05)
    return []


def _no_error_events(text: str) -> None:
    assert text.rstrip().endswith("data: [DONE]")
    for line in text.splitlines():
        if line.startswith("data: {"):
            data = json.loads(line[6:])
            assert "error" not in data, line
            assert (data.get("verification") or {}).get("error") is None, line


@pytest.mark.parametrize("stream", [False, True])
def test_lone_surrogate_in_a_prompt_is_answered_and_audited(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
    tmp_path: Path,
    stream: bool,
) -> None:
    proxy = proxy_factory(_verifying(model_dir, tmp_path))
    raw = _with_surrogates(
        _chat(
            stream=stream,
            messages=[{"role": "user", "content": "Metformin lowers HbA1c @ by 1%."}],
            veriproxy={"documents": [{"text": "Metformin @ lowers HbA1c."}]},
        )
    )
    resp = httpx.post(
        f"{proxy.base_url}/chat/completions",
        content=raw,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert resp.status_code == 200, resp.text
    if stream:
        _no_error_events(resp.text)
    assert len(_audit(tmp_path)) == 1


def test_lone_surrogate_in_verify_answer_and_evidence(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    proxy = proxy_factory(_verifying(model_dir, tmp_path))
    raw = _with_surrogates(
        {
            "answer": "Metformin @ lowers HbA1c [PMID:1].",
            "evidence": [{"pmid": "1", "title": "T @", "abstract": "Metformin lowers HbA1c @."}],
        }
    )
    resp = httpx.post(f"{proxy.base_url}/verify", content=raw, timeout=30)
    assert resp.status_code == 200, resp.text
    assert "\ufffd" in resp.json()["sentences"][0]["text"]


@pytest.mark.parametrize("policy", ["default", "clinical-strict"])  # annotate, gate
def test_lone_surrogate_from_the_upstream_stream(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
    tmp_path: Path,
    policy: str,
) -> None:
    event = chunk("Metformin lowers HbA1c. It is safe ").replace(b"safe", b"\\ud800 safe")
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(sse(event, chunk("today."), chunk(finish="stop"), b"data: [DONE]\n\n"))
        proxy = proxy_factory(
            _verifying(model_dir, tmp_path, default_upstream={"base_url": base_url})
        )
        body = _chat(stream=True, veriproxy={"policy": policy})
        resp = httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=30)
    assert resp.status_code == 200
    _no_error_events(resp.text)
    assert len(_audit(tmp_path)) == 1


def test_lone_surrogate_from_the_upstream_completion(
    proxy_factory: ProxyFactory,
    model_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    body = completion("Metformin lowers HbA1c. It is safe.").replace(b"safe", b"\\udc00 safe")
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(body)
        proxy = proxy_factory(
            _verifying(model_dir, tmp_path, default_upstream={"base_url": base_url})
        )
        resp = httpx.post(f"{proxy.base_url}/chat/completions", json=_chat(), timeout=30)
    assert resp.status_code == 200, resp.text
    assert "verification" in resp.json()
    assert len(_audit(tmp_path)) == 1


def _requests_by_status(proxy: RunningProxy) -> dict[str, float]:
    counts: dict[str, float] = {}
    for metric in proxy.app.state.metrics.registry.collect():
        for sample in metric.samples:
            if sample.name == "veriproxy_requests_total":
                status = sample.labels["status"]
                counts[status] = counts.get(status, 0) + sample.value
    return counts


def test_client_abort_while_sending_the_body_is_a_499(
    proxy_factory: ProxyFactory, caplog: pytest.LogCaptureFixture
) -> None:
    proxy = proxy_factory()
    host, port = proxy.base_url.removeprefix("http://").split("/")[0].split(":")
    with caplog.at_level(logging.ERROR):
        for _ in range(3):
            with socket.create_connection((host, int(port))) as sock:
                sock.sendall(
                    b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
                    b"content-type: application/json\r\ncontent-length: 100000\r\n\r\n"
                    b'{"model": "gpt-test", "mess'
                )
                time.sleep(0.1)
        deadline = time.monotonic() + 5
        while _requests_by_status(proxy).get("499", 0) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    counts = _requests_by_status(proxy)
    assert counts.get("499") == 3 and "500" not in counts, counts
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
