"""The review queue end to end, through the real proxy (bundled NLI, the demo's retrieval),
the openai SDK and the real PostgreSQL: traffic fills the queue at the configured rates,
reviewers label items through the API, each label joins the audit chain, and the report, the
metrics and the export say what the labels say."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from proxy.audit import verify_file
from proxy.cli import main
from proxy.cli.demo import DEMO_MODEL, load_recorded
from proxy.review.event import EVENT
from tests.proxy.test_metrics import value
from tests.ui.conftest import ReviewStack
from tests.ui.reviewing import audit_records, queued, send, settled

POLICIES = ("default", "clinical-strict")


def _label(
    stack: ReviewStack, key: str, item_id: int, verdict: str, note: str = ""
) -> httpx.Response:
    return httpx.post(
        f"{stack.proxy.base_url}/review/items/{item_id}/labels",
        json={"verdict": verdict, "note": note},
        headers={"authorization": f"Bearer {key}"},
        timeout=30,
    )


def _expected(records: list[dict[str, Any]]) -> set[tuple[str, int, int]]:
    """What REVIEW_RATES sends: every sentence a policy acted on or the verifier marked
    needs_review, every supported sentence and every sentence of a verified response."""
    return {
        (r["request_id"], r["choice"], s["index"])
        for r in records
        if "sentences" in r
        for s in r["sentences"]
        if s["action"] != "annotate"
        or s["needs_review"]
        or s["verdict"] == "supported"
        or r["status"] == "verified"
    }


@pytest.fixture(scope="module")
def traffic(review_stack: ReviewStack) -> list[dict[str, Any]]:
    """Every demo question under two policies, from the caller's key; then the queue."""
    send(review_stack, load_recorded(), POLICIES)
    expected = _expected(audit_records(review_stack))
    return settled(review_stack, review_stack.first, len(expected))


def test_traffic_fills_the_queue_at_the_configured_rates(
    review_stack: ReviewStack, traffic: list[dict[str, Any]]
) -> None:
    records = audit_records(review_stack)
    assert {(i["request_id"], 0, i["sentence"]) for i in traffic} == _expected(records)
    assert {i["reason"] for i in traffic} >= {"action"}  # the strict policy acted on some
    assert all(i["inclusion"] == 1.0 for i in traffic)
    by_text = {(r["request_id"], s["index"]): s["verdict"] for r in records for s in r["sentences"]}
    assert all(by_text[(i["request_id"], i["sentence"])] == i["verdict"] for i in traffic)
    assert all(i["text"] and i["tenant"] == "clinic" for i in traffic)
    # Each deciding span comes with the abstract it was read from, highlighted there on the page.
    spans = [q for i in traffic for q in i["evidence"]]
    assert spans and all(q["abstract"][q["start"] : q["end"]] == q["text"] for q in spans)


def test_other_keys_cannot_read_or_label(
    review_stack: ReviewStack, traffic: list[dict[str, Any]]
) -> None:
    url = f"{review_stack.proxy.base_url}/review/items"
    refused = httpx.get(url, headers={"authorization": f"Bearer {review_stack.caller}"}, timeout=30)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    assert httpx.get(url, timeout=30).status_code == 401
    assert (
        _label(review_stack, review_stack.caller, traffic[0]["id"], "supported").status_code == 403
    )


def test_labels_become_estimates_agreement_audit_events_and_an_export(
    review_stack: ReviewStack, traffic: list[dict[str, Any]], tmp_path: Path
) -> None:
    first, second = review_stack.first, review_stack.second
    supported = [i for i in traffic if i["verdict"] == "supported"]
    assert len(supported) >= 2
    wrong = supported[0]
    for item in traffic:
        verdict = "unsupported" if item is wrong else item["verdict"]
        created = _label(review_stack, first, item["id"], verdict, "dose not in the abstract")
        assert created.status_code == 201, created.text
        assert created.json()["correct"] is (item is not wrong)
    again = _label(review_stack, first, wrong["id"], "supported")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "review_already_labelled"
    assert _label(review_stack, first, 10**9, "supported").status_code == 404
    assert _label(review_stack, first, wrong["id"], "plausible").status_code == 400
    assert queued(review_stack, first) == []
    # The second reviewer agrees on all but the item the first called wrong.
    for item in supported:
        assert _label(review_stack, second, item["id"], "supported").status_code == 201
    summary = httpx.get(
        f"{review_stack.proxy.base_url}/review/summary",
        headers={"authorization": f"Bearer {second}"},
        timeout=30,
    ).json()
    assert summary["labelled"] == len(traffic)
    assert summary["agreement"]["items"] == len(supported)
    assert summary["agreement"]["agreed"] == len(supported) - 1

    # Precision of supported sentences: all but one confirmed (every weight is 1 here).
    expected = (len(supported) - 1) / len(supported)
    metrics = review_stack.proxy.app.state.metrics
    scope = {"scope": "supported_sentences"}
    assert value(metrics, "veriproxy_review_precision", bound="estimate", **scope) == pytest.approx(
        expected
    )
    assert value(metrics, "veriproxy_review_reviewed", **scope) == len(supported)
    lower = value(metrics, "veriproxy_review_precision", bound="lower", **scope)
    assert 0 < lower < expected
    assert value(metrics, "veriproxy_review_precision_floor") == 0.8

    out = io.StringIO()
    with redirect_stdout(out):
        assert (
            main(["review", "--store", review_stack.store, "report", "--json", "--by", "model"])
            == 0
        )
    report = json.loads(out.getvalue())
    rows = {row["verdict"]: row for row in report["overall"]["verdicts"]}
    assert rows["supported"]["precision"]["value"] == pytest.approx(expected)
    assert rows["supported"]["precision"]["n"] == len(supported)
    assert [g["name"] for g in report["groups"]] == [DEMO_MODEL]
    cell = {(c["predicted"], c["truth"]): c["reviewed"] for c in report["confusion"]}
    assert cell[("supported", "unsupported")] == 1
    text = io.StringIO()
    with redirect_stdout(text):
        assert main(["review", "--store", review_stack.store, "report"]) == 0
    assert "supported" in text.getvalue() and "kappa" in text.getvalue()

    # Each label is an event in the audit chain, which still verifies.
    events = [r for r in audit_records(review_stack) if r.get("event") == EVENT]
    assert len(events) == len(traffic) + len(supported)
    assert {
        (e["item_id"], e["verdict"]) for e in events if e["reviewer"] != events[-1]["reviewer"]
    } >= {(wrong["id"], "unsupported")}
    checked = verify_file(review_stack.audit)
    assert checked.ok and checked.count == len(audit_records(review_stack))

    exported = tmp_path / "reviews.jsonl"
    with redirect_stdout(io.StringIO()):
        assert (
            main(["review", "--store", review_stack.store, "export", "--out", str(exported)]) == 0
        )
    rows_out = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert len(rows_out) == len(traffic)
    mislabelled = next(
        r
        for r in rows_out
        if r["request_id"] == wrong["request_id"] and r["sentence"] == wrong["sentence"]
    )
    assert (mislabelled["predicted"], mislabelled["verdict"], mislabelled["expected"]) == (
        "supported",
        "unsupported",
        "neutral",
    )


def test_a_label_edited_in_the_store_no_longer_matches_the_audit_log(
    review_stack: ReviewStack, traffic: list[dict[str, Any]]
) -> None:
    # A label of its own, so that the test holds run alone too.
    open_items = queued(review_stack, review_stack.second)
    assert open_items
    target = open_items[0]["id"]
    assert _label(review_stack, review_stack.second, target, "uncited").status_code == 201
    verify = ["review", "--store", review_stack.store, "verify", "--audit", str(review_stack.audit)]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(verify) == 0
    assert "labels match the audit log" in out.getvalue()

    engine = create_engine(review_stack.store)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE review_labels SET verdict = 'supported' WHERE item_id = :id"),
            {"id": target},
        )
    engine.dispose()
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(verify) == 1
    assert f"changed in the store: item {target} by" in out.getvalue()
