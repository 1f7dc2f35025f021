"""The playground's HTTP side, without a browser: ``GET /ui`` (public, locked down by its
Content-Security-Policy), ``GET /v1/policies`` (behind the key), the ``include_evidence``
option that sends the injected abstracts beside the (unchanged) report, and
``GET /v1/audit/{request id}/withheld``, which gives the words a policy withheld to a reviewer key
and to nobody else."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from policies import PolicyStore
from policies.protocol import load_schema
from proxy.auth import FileKeyStore, new_key
from proxy.cli.demo import DEMO_MODEL, load_recorded
from proxy.testing.server_thread import RunningProxy
from tests.conftest import ProxyFactory
from tests.ui.conftest import ReviewedProxy

IBUPROFEN, _, AMOXAPINE, _ = load_recorded()
FABRICATED = "Amoxapine also halved relapse rates in schizophrenia in a large randomised trial"
DOSE = "bupivacaine 200 mg"


def _csp_sources(csp: str, directive: str) -> list[str]:
    for part in csp.split(";"):
        name, *values = part.split()
        if name == directive:
            return values
    return []


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.mark.parametrize(
    ("path", "calls"), [("/ui", "/v1/chat/completions"), ("/ui/review", "/v1/review/items")]
)
def test_page_is_public_and_allows_only_its_own_inline_code(
    proxy_factory: ProxyFactory, tmp_path: Path, path: str, calls: str
) -> None:
    store = tmp_path / "keys.json"
    key, record = new_key("acme")
    asyncio.run(FileKeyStore(store).put(record))
    proxy = proxy_factory({"auth": {"store": str(store)}})
    page = httpx.get(f"{proxy.url}{path}")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    (script,) = re.findall(r"<script>(.*?)</script>", page.text, flags=re.S)
    (style,) = re.findall(r"<style>(.*?)</style>", page.text, flags=re.S)
    csp = page.headers["content-security-policy"]
    assert _csp_sources(csp, "script-src") == [_sha256(script)]
    assert _csp_sources(csp, "style-src") == [_sha256(style)]
    # The typed key can only ever go back to this origin.
    assert _csp_sources(csp, "connect-src") == ["'self'"]
    assert _csp_sources(csp, "default-src") == ["'none'"]
    assert calls in script and "$" not in page.text.split("<script>")[0]
    # The API next to it still wants the key.
    assert httpx.get(f"{proxy.base_url}/policies").status_code == 401
    listed = httpx.get(f"{proxy.base_url}/policies", headers={"authorization": f"Bearer {key}"})
    assert listed.status_code == 200


def test_policies_lists_the_presets(demo_proxy: RunningProxy) -> None:
    body = httpx.get(f"{demo_proxy.base_url}/policies").json()
    names = [p["id"] for p in body["data"]]
    assert names == list(PolicyStore().names())
    assert {"default", "clinical-strict", "research", "veterinary", "audit-only"} <= set(names)
    modes = {p["id"]: p["stream_mode"] for p in body["data"]}
    assert modes["clinical-strict"] == "gate" and modes["default"] == "annotate"
    assert body["default"] == "default"


def test_policies_empty_when_verification_is_off(proxy: RunningProxy) -> None:
    body = httpx.get(f"{proxy.base_url}/policies").json()
    assert body == {"object": "list", "data": [], "default": None}


def _request(stream: bool, include_evidence: bool) -> dict[str, Any]:
    options = {"include_evidence": True} if include_evidence else {}
    return {
        "model": DEMO_MODEL,
        "stream": stream,
        "messages": [{"role": "user", "content": IBUPROFEN.question}],
        "veriproxy": options,
    }


def _streamed_report(proxy: RunningProxy, include_evidence: bool) -> dict[str, Any]:
    """The stream's report chunk (``verification`` and anything beside it)."""
    body = _request(True, include_evidence)
    with httpx.stream("POST", f"{proxy.base_url}/chat/completions", json=body, timeout=120) as r:
        events = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    reports = [c for c in chunks if c.get("verification", {}).get("type") == "report"]
    assert len(reports) == 1
    assert all("evidence_documents" not in c for c in chunks if c not in reports)
    chunk: dict[str, Any] = reports[0]
    chunk["verification"].pop("type")
    return chunk


def _check_documents(outer: dict[str, Any]) -> None:
    report = outer["verification"]
    jsonschema.validate(report, load_schema("response_report"))  # the report is unchanged
    documents = {d["pmid"]: d for d in outer["evidence_documents"]}
    assert IBUPROFEN.pmid in documents
    assert {ref["pmid"] for ref in report["evidence"]} <= set(documents)
    doc = documents[IBUPROFEN.pmid]
    assert doc["title"] == IBUPROFEN.question and "bupivacaine 20mg" in doc["abstract"]
    spans = [span for s in report["sentences"] for span in s["evidence"]]
    assert spans, "the recorded answer cites its abstract: some span must decide"
    for span in spans:
        assert documents[span["pmid"]]["abstract"][span["start"] : span["end"]] == span["text"]


def test_streamed_report_carries_the_injected_abstracts(demo_proxy: RunningProxy) -> None:
    _check_documents(_streamed_report(demo_proxy, include_evidence=True))
    assert "evidence_documents" not in _streamed_report(demo_proxy, include_evidence=False)


def test_completion_carries_the_injected_abstracts(demo_proxy: RunningProxy) -> None:
    url = f"{demo_proxy.base_url}/chat/completions"
    _check_documents(httpx.post(url, json=_request(False, True), timeout=120).json())
    without = httpx.post(url, json=_request(False, False), timeout=120).json()
    assert "evidence_documents" not in without


def _strict(question: str, stream: bool) -> dict[str, Any]:
    return {
        "model": DEMO_MODEL,
        "stream": stream,
        "messages": [{"role": "user", "content": question}],
        "veriproxy": {"policy": "clinical-strict", "include_evidence": True},
    }


def _ask(stack: ReviewedProxy, key: str, question: str, stream: bool) -> tuple[str, str]:
    """(request id, everything the client received) of one strict-policy answer."""
    url = f"{stack.proxy.base_url}/chat/completions"
    auth = {"authorization": f"Bearer {key}"}
    with httpx.stream("POST", url, json=_strict(question, stream), headers=auth, timeout=120) as r:
        assert r.status_code == 200
        return r.headers["x-request-id"], r.read().decode()


def _withheld(stack: ReviewedProxy, key: str | None, request_id: str) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    url = f"{stack.proxy.base_url}/audit/{request_id}/withheld"
    return httpx.get(url, headers=headers, timeout=30)


def test_withheld_words_reach_a_reviewer_key_and_no_one_else(
    reviewed_proxy: ReviewedProxy,
) -> None:
    stack = reviewed_proxy
    for stream in (False, True):
        request_id, received = _ask(stack, stack.caller, AMOXAPINE.question, stream)
        # The answer, its report and the evidence documents never hold the redacted words ...
        assert FABRICATED not in received
        stored = httpx.get(
            f"{stack.proxy.base_url}/chat/completions/{request_id}/verification",
            headers={"authorization": f"Bearer {stack.caller}"},
        )
        assert stored.status_code == 200 and FABRICATED not in stored.text
        # ... nor does the review endpoint, for any key but a reviewer of the same tenant.
        refused = _withheld(stack, stack.caller, request_id)
        assert refused.status_code == 403 and FABRICATED not in refused.text
        assert refused.json()["error"]["code"] == "permission_denied"
        elsewhere = _withheld(stack, stack.outsider, request_id)
        assert elsewhere.status_code == 404 and FABRICATED not in elsewhere.text
        assert _withheld(stack, None, request_id).status_code == 401
        # The reviewer reads the sentence and the rule that withheld it from the audit record.
        review = _withheld(stack, stack.reviewer, request_id)
        assert review.status_code == 200
        assert review.headers["cache-control"] == "no-store"
        [item] = review.json()["data"]
        assert item["text"].startswith(FABRICATED) and item["index"] == 2
        assert (item["action"], item["rule"]) == ("redact", "redact-fabricated-citation")
        assert "redact-fabricated-citation" in item["rules_fired"]
    assert _withheld(stack, stack.reviewer, "no-such-request").status_code == 404
    assert FABRICATED in stack.audit.read_text()  # where the reviewer's copy comes from


def test_a_blocked_sentence_is_reviewable_too(reviewed_proxy: ReviewedProxy) -> None:
    stack = reviewed_proxy
    request_id, received = _ask(stack, stack.reviewer, IBUPROFEN.question, stream=True)
    assert DOSE not in received  # a reviewer's own stream withholds like anyone's
    [item] = _withheld(stack, stack.reviewer, request_id).json()["data"]
    assert DOSE in item["text"]
    assert (item["action"], item["rule"]) == ("block", "block-contradicted-high-harm")


def test_keyless_mode_has_no_reviewer(demo_proxy: RunningProxy) -> None:
    refused = httpx.get(f"{demo_proxy.base_url}/audit/anything/withheld")
    assert refused.status_code == 403
