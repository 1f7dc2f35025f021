"""Two ``veriproxy serve`` processes sharing one real Redis behave as one: rate limits are
shared, a policy reload found by one reaches the other through Redis, and the audit records of
both land in one stream whose hash chain verifies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator
from tests.proxy.redis_helpers import SHARED_URL, delete_prefix, free_port, fresh_prefix

ROOT = Path(__file__).parents[3]
STARTUP_S = 120.0
POLICY = """\
name: {name}
description: written by the replica test
sentence_rules:
  - name: flag-contradicted
    when:
      verdict: [contradicted]
    action: flag
"""


@contextmanager
def replica(config: dict[str, object], tmp: Path, name: str) -> Iterator[str]:
    path = tmp / f"{name}.yaml"
    path.write_text(json.dumps(config))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = (tmp / f"{name}.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "proxy", "serve", "--config", str(path)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{config['port']}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError((tmp / f"{name}.log").read_text()[-2000:])
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"replica {name} did not become ready")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def ask(url: str, policy: str | None = None) -> httpx.Response:
    options: dict[str, object] = {"documents": [{"text": "Aspirin inhibits platelet aggregation."}]}
    if policy is not None:
        options["policy"] = policy
    return httpx.post(
        f"{url}/v1/chat/completions",
        json={
            "model": "gpt-x",
            "messages": [{"role": "user", "content": "Does aspirin inhibit platelets?"}],
            "veriproxy": options,
        },
        timeout=60,
    )


@pytest.mark.slow
def test_two_replicas_share_limits_policies_and_audit(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    prefix = fresh_prefix()
    stream = f"{prefix}audit"
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "team.yaml").write_text(POLICY.format(name="team"))
    emulator.emulator.reply = "Aspirin inhibits platelet aggregation [1]."

    def config(poll_seconds: float) -> dict[str, object]:
        return {
            "port": free_port(),
            "log_level": "warning",
            "default_upstream": {"base_url": emulator.base_url},
            "redis": {"url": SHARED_URL, "prefix": prefix},
            "rate_limits": {"default": {"requests": 6, "window_seconds": 60}},
            "audit": {"redis_stream": stream},
            "retrieval": {"enabled": False},
            "verification": {"policies_dir": str(policies), "reload_seconds": poll_seconds},
        }

    try:
        with ExitStack() as stack:
            # A polls its policy files quickly; B would not look again for an hour.
            a = stack.enter_context(replica(config(0.2), tmp_path, "a"))
            b = stack.enter_context(replica(config(3600), tmp_path, "b"))

            # Policies: B learns of a file that only A's poll noticed, through a Redis notice.
            first = ask(b, "team")
            assert first.status_code == 200, first.text
            statuses = [first.status_code, ask(b, "late").status_code]
            assert statuses == [200, 400]
            (policies / "late.yaml").write_text(POLICY.format(name="late"))
            deadline = time.monotonic() + 15
            while (status := ask(b, "late").status_code) != 200:
                statuses.append(status)
                assert time.monotonic() < deadline, "the reload never reached replica B"
                time.sleep(0.3)
            statuses.append(status)

            # Rate limits: one budget of 6 requests a minute across both replicas (B has
            # already spent some of it above, so count from what is left).
            used = len(statuses)
            more = [ask(url) for url in (a, b) * 4]
            statuses += [r.status_code for r in more]
            assert statuses.count(429) >= used + 8 - 6
            limited = next(r for r in more if r.status_code == 429)
            assert limited.json()["error"]["code"] and "retry-after" in limited.headers

        # Audit: every verified answer of both replicas, in one stream that verifies.
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "proxy",
                "audit",
                "verify",
                "--redis",
                SHARED_URL,
                "--stream",
                stream,
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"OK: {statuses.count(200)} records" in result.stdout
    finally:
        delete_prefix(prefix)
