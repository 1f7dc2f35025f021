"""Every outcome of a verified request leaves one audit record: a verified answer, an upstream
error before the stream (after retries), an upstream failure mid-stream, and a client that goes
away mid-stream. Records of failures say why, and never carry a key."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory
from tests.proxy.routes.test_verify_route import model_dir  # noqa: F401 -- the tiny NLI model fixture

UPSTREAM_KEY = "sk-upstream-audit-0123456789SECRET"


@pytest.fixture
def audited(
    proxy_factory: ProxyFactory,
    emulator: RunningEmulator,
    model_dir: Path,  # noqa: F811 -- the imported fixture
    tmp_path: Path,
) -> tuple[RunningProxy, Path]:
    audit = tmp_path / "audit.jsonl"
    proxy = proxy_factory(
        {
            "default_upstream": {"base_url": emulator.base_url, "api_key": UPSTREAM_KEY},
            "verification": {
                "enabled": True,
                "verifier": {"nli": {"name": "hf", "model": str(model_dir), "threads": 1}},
            },
            "audit": {"jsonl": str(audit)},
            "retry": {"max_attempts": 2, "backoff_seconds": 0.01},
            "timeouts": {"read": 1.0},
        }
    )
    return proxy, audit


def _records(path: Path, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= count:
            break
        time.sleep(0.05)
    return [json.loads(line)["record"] for line in lines]


def _post(proxy: RunningProxy, model: str, stream: bool) -> httpx.Response:
    body = {"model": model, "messages": [{"role": "user", "content": "ALDH1 and prognosis?"}]}
    return httpx.post(
        f"{proxy.base_url}/chat/completions", json={**body, "stream": stream}, timeout=30
    )


@pytest.mark.parametrize("stream", [False, True])
def test_verified_answer_is_recorded(audited: tuple[RunningProxy, Path], stream: bool) -> None:
    proxy, audit = audited
    assert _post(proxy, "gpt-test", stream).status_code == 200
    [record] = _records(audit, 1)
    assert record["error"] is None and record["status"] != "unverified"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("mode", "status"), [("error-503", 503), ("slow-3000", 504)])
def test_upstream_error_before_the_answer_is_recorded(
    audited: tuple[RunningProxy, Path], stream: bool, mode: str, status: int
) -> None:
    proxy, audit = audited
    assert _post(proxy, f"emu-{mode}", stream).status_code == status
    [record] = _records(audit, 1)
    assert record["status"] != "verified"
    assert record["error"] and str(status) in record["error"]
    assert UPSTREAM_KEY not in audit.read_text()


@pytest.mark.parametrize(
    ("path", "question"),
    [("/completions", {"prompt": "ALDH1 and prognosis?"}), ("/responses", {"input": "ALDH1?"})],
)
def test_dialect_upstream_error_before_the_answer_is_recorded(
    audited: tuple[RunningProxy, Path], path: str, question: dict[str, str]
) -> None:
    """Legacy completions and the Responses API tell the same failure observers as chat."""
    proxy, audit = audited
    body = {"model": "emu-error-503", **question}
    assert httpx.post(f"{proxy.base_url}{path}", json=body, timeout=30).status_code == 503
    [record] = _records(audit, 1)
    assert record["status"] != "verified"
    assert record["error"] and "503" in record["error"]
    assert UPSTREAM_KEY not in audit.read_text()


@pytest.mark.parametrize("mode", ["die", "malformed", "nodone", "drip-3000"])
def test_upstream_failure_mid_stream_is_recorded(
    audited: tuple[RunningProxy, Path], mode: str
) -> None:
    proxy, audit = audited
    resp = _post(proxy, f"emu-{mode}", True)
    assert resp.status_code == 200 and '"error"' in resp.text
    [record] = _records(audit, 1)
    assert record["status"] != "verified"
    assert record["error"] and "upstream" in record["error"]


def test_client_gone_mid_stream_is_recorded(
    audited: tuple[RunningProxy, Path], emulator: RunningEmulator
) -> None:
    proxy, audit = audited
    body = json.dumps(
        {
            "model": "emu-drip-200",
            "messages": [{"role": "user", "content": "a b c d e"}],
            "stream": True,
        }
    ).encode()
    port = int(proxy.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        received = b""
        while b"data: " not in received:
            received += sock.recv(65536)
    assert emulator.stats.wait_for(lambda s: s.streams_cancelled == 1)
    [record] = _records(audit, 1)
    assert record["status"] != "verified" and "client" in record["error"]


def test_an_audit_file_that_fails_never_fails_the_request(
    audited: tuple[RunningProxy, Path],
) -> None:
    """Issue 26 item 11: the audit log is never the reason a request fails; a lost record is
    counted and /readyz says so until a write succeeds."""
    proxy, audit = audited
    assert _post(proxy, "gpt-x", False).status_code == 200
    with audit.open("ab") as fh:
        fh.write(b"not an audit line\n")  # another writer broke the chain's last line
    assert _post(proxy, "gpt-x", False).status_code == 200
    ready = httpx.get(f"{proxy.base_url.removesuffix('/v1')}/readyz", timeout=10)
    assert ready.status_code == 503
    assert ready.json()["reasons"] == ["the audit file cannot be written (AuditFileError)"]
    metrics = httpx.get(f"{proxy.base_url.removesuffix('/v1')}/metrics", timeout=10).text
    assert 'veriproxy_audit_write_failures_total{sink="jsonl"} 1.0' in metrics
