"""``needs_review`` end to end: a claim whose calibrated confidence is below
``verification.verifier.review_below`` carries the flag in the completion's report, the stream's
annotations, the response header, the audit record and the metric, and a policy condition acts on
it. The real openai SDK -> the running proxy (bundled model) -> the upstream emulator replaying a
sentence built from a real PubMedQA abstract, which the client supplies as its evidence.

``review_below: 1.0`` marks every claim the model judged (a fitted confidence is never 1), so
these tests pin where the flag goes, not which claims the shipped threshold marks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client
from tests.proxy.ibuprofen import DOCUMENTS, QUESTION, SUPPORTED, VERIFICATION

ProxyFactory = Callable[..., RunningProxy]


@pytest.fixture
def reviewing(proxy_factory: ProxyFactory, tmp_path: Path) -> RunningProxy:
    return proxy_factory(
        {
            "verification": VERIFICATION | {"verifier": {"review_below": 1.0}},
            "audit": {"jsonl": str(tmp_path / "audit.jsonl"), "include_text": True},
        }
    )


def _options(policy: str) -> dict[str, Any]:
    return {"veriproxy": {"documents": DOCUMENTS, "policy": policy}}


def _audit(proxy: RunningProxy) -> list[dict[str, Any]]:
    path = Path(proxy.settings.audit.jsonl or "")
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def _needs_review_claims(proxy: RunningProxy, policy: str) -> float:
    text = httpx.get(f"{proxy.url}/metrics").text
    total = 0.0
    for line in text.splitlines():
        if line.startswith("veriproxy_claims_needs_review_total{") and f'policy="{policy}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_a_claim_below_review_below_is_never_reported_verified(
    reviewing: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = SUPPORTED
    raw = sdk_client(reviewing.base_url).chat.completions.with_raw_response.create(
        model="gpt-x", messages=QUESTION, extra_body=_options("default")
    )
    report = (raw.parse().model_extra or {})["verification"]
    (sentence,) = report["sentences"]
    assert sentence["verdict"] == "supported"  # the verdict stands ...
    assert sentence["needs_review"] is True  # ... but the verifier cannot vouch for it
    assert "below the review threshold" in sentence["review_reason"]
    assert all(c["needs_review"] for c in sentence["claims"])
    assert report["needs_review"] == len(sentence["claims"]) >= 1
    assert report["status"] == "needs_review"
    assert raw.headers["x-veriproxy-status"] == "needs_review"
    record = _audit(reviewing)[-1]
    assert record["status"] == "needs_review"
    assert record["sentences"][0]["needs_review"] is True
    assert _needs_review_claims(reviewing, "default") == report["needs_review"]


def test_the_flag_rides_in_the_streamed_annotations(
    reviewing: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = SUPPORTED
    chunks = list(
        sdk_client(reviewing.base_url).chat.completions.create(
            model="gpt-x", messages=QUESTION, stream=True, extra_body=_options("research")
        )
    )
    annotations = [
        (c.model_extra or {})["verification"]
        for c in chunks
        if "verification" in (c.model_extra or {})
    ]
    sentences = [a for a in annotations if a["type"] != "report"]
    (report,) = [a for a in annotations if a["type"] == "report"]
    assert [s["needs_review"] for s in sentences] == [True]
    # research only counts them: the rule that notes them fires, nothing is flagged.
    assert report["status"] == "needs_review"
    assert "note-needs-review" in report["rules_fired"]


def test_clinical_strict_flags_what_needs_review(
    reviewing: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = SUPPORTED
    completion = sdk_client(reviewing.base_url).chat.completions.create(
        model="gpt-x", messages=QUESTION, extra_body=_options("clinical-strict")
    )
    report = (completion.model_extra or {})["verification"]
    assert report["status"] == "flagged"
    assert "flag-needs-review" in report["rules_fired"]
    assert report["sentences"][0]["action"] == "flag"
    # Gate mode releases a flagged sentence: the words reach the client.
    assert completion.choices[0].message.content == SUPPORTED
