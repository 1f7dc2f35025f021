"""Helpers of the review queue's end-to-end tests: demo traffic through the openai SDK from
the stack's caller key, and the queue as a reviewer's key reads it."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import httpx
import openai

from proxy.cli.demo import DEMO_MODEL, RecordedAnswer
from tests.ui.conftest import ReviewStack

QUEUE_TIMEOUT_S = 30  # the queue writes to the store in the background


def audit_records(stack: ReviewStack) -> list[dict[str, Any]]:
    lines = stack.audit.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["record"] for line in lines]


def queued(stack: ReviewStack, key: str) -> list[dict[str, Any]]:
    r = httpx.get(
        f"{stack.proxy.base_url}/review/items",
        params={"limit": 500},
        headers={"authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert r.status_code == 200, r.text
    return list(r.json()["data"])


def send(stack: ReviewStack, answers: Sequence[RecordedAnswer], policies: Sequence[str]) -> None:
    client = openai.OpenAI(base_url=stack.proxy.base_url, api_key=stack.caller)
    for answer in answers:
        for policy in policies:
            raw = client.chat.completions.with_raw_response.create(
                model=DEMO_MODEL,
                messages=[{"role": "user", "content": answer.question}],
                extra_body={"veriproxy": {"policy": policy}},
                timeout=120,
            )
            assert raw.http_response.status_code == 200
    client.close()


def settled(stack: ReviewStack, key: str, expected: int) -> list[dict[str, Any]]:
    """The queue once it holds ``expected`` items (or whatever it holds at the deadline)."""
    deadline = time.monotonic() + QUEUE_TIMEOUT_S
    found = queued(stack, key)
    while len(found) < expected and time.monotonic() < deadline:
        time.sleep(0.2)
        found = queued(stack, key)
    return found
