"""A verifier whose backend fails on every call (an LLM judge whose endpoint answers 500): the
answer is never reported as verified; the policy's ``on_verifier_error`` decides, the report
and the audit log say why, and the request does not hang."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator
from tests.conftest import ProxyFactory

CLAIM = "Metformin lowers HbA1c in adults with type 2 diabetes [PMID:1]."
DOCUMENT = {"id": "1", "text": "Metformin lowered HbA1c by 1.1% in adults with type 2 diabetes."}
# The emulator echoes the user's message, so the answer is CLAIM, checked against DOCUMENT.
# litellm's first import takes seconds.
pytestmark = pytest.mark.slow

BODY = {
    "model": "gpt-test",
    "messages": [{"role": "user", "content": CLAIM}],
    "veriproxy": {"documents": [DOCUMENT]},
}


@pytest.mark.parametrize("stream", [False, True])
def test_failing_verifier_is_never_verified(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path, stream: bool
) -> None:
    judge = {
        "name": "llm",
        "model": "openai/emu-error-500",
        "api_base": emulator.base_url,
        "api_key": "sk-judge-not-secret-000000",
        "timeout_s": 5,
    }
    audit = tmp_path / "audit.jsonl"
    proxy = proxy_factory(
        {
            "verification": {"enabled": True, "verifier": {"nli": judge}, "timeout_seconds": 20},
            "audit": {"jsonl": str(audit)},
        }
    )
    resp = httpx.post(
        f"{proxy.base_url}/chat/completions", json={**BODY, "stream": stream}, timeout=60
    )
    assert resp.status_code == 200, resp.text
    if stream:
        events = [json.loads(x[6:]) for x in resp.text.splitlines() if x.startswith("data: {")]
        report = next(
            e["verification"] for e in events if e.get("verification", {}).get("type") == "report"
        )
    else:
        report = resp.json()["verification"]
    assert report["status"] != "verified"
    assert "verification failed" in (report["error"] or "")
    record = json.loads(audit.read_text().splitlines()[-1])["record"]
    assert record["status"] == report["status"] and "verification failed" in record["error"]
    assert judge["api_key"] not in resp.text + audit.read_text()
