"""``veriproxy serve`` as a real process: start-up, config errors, graceful drain on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator

pytestmark = pytest.mark.slow  # starts a Python process


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(args: list[str], environ: dict[str, str]) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIPROXY_")}
    env.update(environ)
    return subprocess.Popen(
        [sys.executable, "-m", "proxy", "serve", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


@pytest.fixture
def running(emulator: RunningEmulator) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    proc = serve(
        ["--port", str(port)],
        {
            "VERIPROXY_DEFAULT_UPSTREAM__BASE_URL": emulator.base_url,
            "VERIPROXY_DRAIN_SECONDS": "10",
            # The proxy core under test; verification needs the bundled model on disk.
            "VERIPROXY_VERIFICATION__ENABLED": "false",
        },
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not _ready(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"serve did not start: {proc.communicate()[1].decode()[-2000:]}")
        time.sleep(0.1)
    yield proc, url
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    if proc.stdout:
        proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()


def test_serves_then_drains_inflight_stream_on_sigterm(
    running: tuple[subprocess.Popen[bytes], str], emulator: RunningEmulator
) -> None:
    proc, url = running
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
    response = httpx.get(f"{url}/v1/models", headers={"x-request-id": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"
    # No models are configured, so the list is the default upstream's own.
    assert [m["id"] for m in response.json()["data"]] == ["emulator"]

    body = {
        "model": "emu-drip-100",
        "messages": [{"role": "user", "content": "one two three four five six seven eight"}],
        "stream": True,
    }
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=20) as response:
        assert response.status_code == 200
        parts = response.iter_raw()
        received = next(parts)
        proc.send_signal(signal.SIGTERM)
        received += b"".join(parts)
    assert received.endswith(b"data: [DONE]\n\n")
    assert b'"error"' not in received
    assert proc.wait(timeout=20) == 0
    assert emulator.stats.streams_completed == 1
    # Log lines are JSON with the request id.
    lines = [json.loads(line) for line in proc.stderr.read().decode().splitlines() if line]  # type: ignore[union-attr]
    access = [line for line in lines if line.get("logger") == "veriproxy.access"]
    assert access and access[-1]["status"] == 200 and access[-1]["request_id"]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("timeouts: {read: soon}\n", "config key timeouts.read"),
        # The verifier's section is typed like the others: a misspelt key is refused.
        (
            "verification:\n  verifier:\n    windowz: 3\n",
            "config key verification.verifier.windowz",
        ),
    ],
)
def test_bad_config_exits_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    proc = serve(["--config", str(path)], {})
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert key in stderr.decode()


def test_workers_share_the_port_and_sum_their_metrics(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_1.db").write_bytes(b"left by an earlier run")
    port = free_port()
    proc = serve(
        ["--port", str(port), "--workers", "2"],
        {
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
            "VERIPROXY_DEFAULT_UPSTREAM__BASE_URL": "http://127.0.0.1:9/v1",
            "VERIPROXY_VERIFICATION__ENABLED": "false",
            "VERIPROXY_RETRIEVAL__ENABLED": "false",
            # Counted per worker without Redis: the process says so.
            "VERIPROXY_RATE_LIMITS__DEFAULT__REQUESTS": "1000",
        },
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        # Each worker writes its own files once its metrics exist: wait for both.
        while len(set(metrics_dir.glob("counter_*.db"))) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, "workers did not start"
            time.sleep(0.1)
        while not _ready(url):
            assert proc.poll() is None and time.monotonic() < deadline, "serve did not answer"
            time.sleep(0.1)
        pids = {p.stem.split("_")[-1] for p in metrics_dir.glob("counter_*.db")}
        assert "1" not in pids and len(pids) == 2  # the stale file was wiped
        for _ in range(30):  # a new connection each, so either worker may take it
            assert httpx.get(f"{url}/healthz").status_code == 200
        exposition = httpx.get(f"{url}/metrics").text
        line = next(
            line
            for line in exposition.splitlines()
            if line.startswith("veriproxy_requests_total{") and 'route="/healthz"' in line
        )
        assert float(line.rsplit(" ", 1)[1]) == 30.0
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 0
        assert b"2 workers without redis: each worker counts rate limits on its own" in stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
