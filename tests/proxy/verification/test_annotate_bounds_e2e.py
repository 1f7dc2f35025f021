"""Annotate mode is bounded as gate mode is (issue 26 item 13): an upstream that streams
sentence-less text without end is cut at ``limits.max_stream_bytes`` with an error event, and
the audit record says why the answer is not verified, never ``blocked`` for text the client
already has. Through the real proxy (bundled verifier, shipped policies) from a hostile upstream
that never stops."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

import policies
from tests.conftest import ProxyFactory
from tests.proxy.audit_helpers import one_audit_record
from tests.proxy.hostile_upstream import chunk, hostile_upstream
from tests.proxy.ibuprofen import VERIFICATION

LIMIT = 64 * 1024
# Annotate mode failing closed: a verifier error blocks, but the text already went out.
ANNOTATE_CLOSED = """\
name: annotate-closed
version: 2
stream_mode: annotate
on_verifier_error: closed
"""


async def _endless() -> AsyncIterator[bytes]:
    """Never a sentence end, never [DONE]: endless as far as the proxy can tell (it stops at
    ten times the limit only so that the server thread can shut down)."""
    event = chunk("metformin lowers hba1c ")
    for _ in range(10 * LIMIT // len(event)):
        yield event
        await asyncio.sleep(0)


@pytest.mark.parametrize(
    ("policy", "status", "after_block"),
    [
        ("research", "unverified", False),  # on_verifier_error: open
        ("default", "flagged", False),  # flag
        ("annotate-closed", "flagged", True),  # closed: blocked, but the text was delivered
    ],
)
def test_an_endless_annotated_stream_is_cut_and_never_reported_blocked(
    proxy_factory: ProxyFactory, tmp_path: Path, policy: str, status: str, after_block: bool
) -> None:
    audit = tmp_path / "audit.jsonl"
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "annotate-closed.yaml").write_text(ANNOTATE_CLOSED)
    shipped = Path(policies.__file__).parent / "presets"
    for name in ("default", "research"):
        (tmp_path / "policies" / f"{name}.yaml").write_text((shipped / f"{name}.yaml").read_text())
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(_endless)
        proxy = proxy_factory(
            {
                "default_upstream": {"base_url": base_url},
                "verification": {**VERIFICATION, "policies_dir": str(tmp_path / "policies")},
                "limits": {"max_stream_bytes": LIMIT},
                "audit": {"jsonl": str(audit)},
            }
        )
        body = {
            "model": "gpt-test",
            "stream": True,
            "messages": [{"role": "user", "content": "hi"}],
            "veriproxy": {"policy": policy},
        }
        with httpx.stream(
            "POST", f"{proxy.base_url}/chat/completions", json=body, timeout=60
        ) as resp:
            assert resp.status_code == 200
            raw = resp.read()
    events = [e.removeprefix(b"data: ") for e in raw.split(b"\n\n") if e]
    assert events[-1] == b"[DONE]"
    error = json.loads(events[-2])["error"]
    assert error["code"] == "stream_too_long" and str(LIMIT) in error["message"]
    # Annotate delivered the text as it came, up to the cut (and no more than the limit).
    delivered = "".join(
        (c.get("delta") or {}).get("content") or ""
        for e in events[:-2]
        for c in json.loads(e).get("choices") or ()
    )
    assert delivered.startswith("metformin lowers hba1c") and len(raw) <= 2 * LIMIT
    record = one_audit_record(audit)
    assert record["status"] == status
    assert "stream_too_long" in (record["error"] or "")
    assert record["delivered_before_block"] is after_block
