"""What reaches the audit record and the metrics for one verified response, through the real
proxy (openai SDK -> proxy with retrieval over the demo index and the bundled verifier -> the
upstream emulator): the API it came in on, the prompt, and a sample of every documented stage."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client

QUESTION = "Do preoperative statins reduce atrial fibrillation after coronary artery bypass?"
ANSWER = "Preoperative statins reduced postoperative atrial fibrillation after bypass surgery."


@pytest.fixture
def verified(
    proxy_factory: Callable[..., RunningProxy], emulator: RunningEmulator, tmp_path: Path
) -> RunningProxy:
    emulator.emulator.reply = ANSWER
    return proxy_factory(
        {
            "retrieval": {"enabled": True, "top_k": 2, "mode": "bm25"},
            "verification": {"enabled": True, "timeout_seconds": 300},
            "audit": {"jsonl": str(tmp_path / "audit.jsonl"), "include_text": True},
        }
    )


def _client(proxy: RunningProxy) -> openai.OpenAI:
    return sdk_client(proxy.base_url, "sk-test")


def _records(proxy: RunningProxy) -> list[dict[str, Any]]:
    path = Path(proxy.settings.audit.jsonl or "")
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def _stage_count(proxy: RunningProxy, stage: str) -> float:
    text = httpx.get(f"{proxy.url}/metrics", timeout=10).text
    name = f'veriproxy_stage_duration_seconds_count{{stage="{stage}"}}'
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))


def test_a_verified_chat_samples_retrieval_verification_and_policy(verified: RunningProxy) -> None:
    before = {s: _stage_count(verified, s) for s in ("retrieval", "verification", "policy")}
    _client(verified).chat.completions.create(
        model="gpt-x", messages=[{"role": "user", "content": QUESTION}]
    )
    for stage, count in before.items():
        assert _stage_count(verified, stage) == count + 1, stage
    [record] = _records(verified)
    assert record["route"] == "/v1/chat/completions" and record["prompt"] == QUESTION
    assert {"retrieval", "verification", "policy"} <= set(record["latency_ms"])


def test_each_api_is_audited_under_its_own_route_with_its_prompt(
    verified: RunningProxy,
) -> None:
    client = _client(verified)
    client.responses.create(model="gpt-x", input=QUESTION)
    client.completions.create(model="gpt-x", prompt=QUESTION)
    records = _records(verified)
    assert [r["route"] for r in records] == ["/v1/responses", "/v1/completions"]
    assert all(r["prompt"] == QUESTION and r["answer"] for r in records)
