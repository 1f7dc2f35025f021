"""A policy file corrupted under a running proxy: the reload is rejected (and counted), the
last good policy keeps deciding, and requests never fail because of it."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import httpx

from proxy.testing.server_thread import RunningEmulator
from tests.conftest import ProxyFactory
from tests.proxy.routes.test_verify_route import model_dir  # noqa: F401 -- the tiny NLI model fixture

PRESETS = Path(__file__).parents[3] / "policies" / "presets"
BODY = {"model": "gpt-test", "messages": [{"role": "user", "content": "ALDH1 and prognosis?"}]}


def _rejected(metrics_url: str) -> float:
    for line in httpx.get(metrics_url, timeout=10).text.splitlines():
        if line.startswith('veriproxy_policy_reloads_total{result="rejected"}'):
            return float(line.split()[-1])
    return 0.0


def test_corrupt_policy_file_keeps_the_last_good_policy(
    proxy_factory: ProxyFactory,
    emulator: RunningEmulator,
    model_dir: Path,  # noqa: F811 -- the imported fixture
    tmp_path: Path,
) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    shutil.copy(PRESETS / "default.yaml", policies / "default.yaml")
    verifier = {"nli": {"name": "hf", "model": str(model_dir), "threads": 1}}
    proxy = proxy_factory(
        {
            "verification": {
                "enabled": True,
                "verifier": verifier,
                "policies_dir": str(policies),
                "reload_seconds": 0.05,
            }
        }
    )
    url = f"{proxy.base_url}/chat/completions"
    before = httpx.post(url, json=BODY, timeout=60)
    assert before.status_code == 200
    policy = before.json()["verification"]["policy"]

    (policies / "default.yaml").write_text("name: default\nsentence_rules: [oops\n")
    deadline = time.monotonic() + 10
    while _rejected(f"{proxy.url}/metrics") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _rejected(f"{proxy.url}/metrics") >= 1

    after = httpx.post(url, json=BODY, timeout=60)
    assert after.status_code == 200, after.text
    assert after.json()["verification"]["policy"] == policy
