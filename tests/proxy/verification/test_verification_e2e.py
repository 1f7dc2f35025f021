"""Verified responses end to end: the real openai SDK -> the running proxy (verification with the
bundled model, real policies) -> the upstream emulator replaying answers built from a real
PubMedQA abstract, which the client supplies as its evidence document."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import openai
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client
from tests.proxy.ibuprofen import (
    CLEAN,
    DOC,
    DOCUMENTS,
    FABRICATED,
    QUESTION,
    SUPPORTED,
    WRONG_DOSE,
)

ProxyFactory = Callable[..., RunningProxy]

SCHEMAS = Path(__file__).parents[3] / "policies" / "protocol"


def _client(proxy: RunningProxy) -> openai.OpenAI:
    return sdk_client(proxy.base_url, "sk-test-client")


def _options(policy: str | None = None) -> dict[str, Any]:
    options: dict[str, Any] = {"documents": DOCUMENTS}
    if policy is not None:
        options["policy"] = policy
    return {"veriproxy": options}


@pytest.fixture
def verifying(proxy_factory: ProxyFactory, tmp_path: Path) -> Iterator[RunningProxy]:
    yield proxy_factory(
        {
            "verification": {"enabled": True},
            "audit": {"jsonl": str(tmp_path / "audit.jsonl")},
        }
    )


def _stream(proxy: RunningProxy, policy: str | None) -> list[Any]:
    stream = _client(proxy).chat.completions.create(
        model="gpt-x", messages=QUESTION, stream=True, extra_body=_options(policy)
    )
    return list(stream)


def _content(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def _annotations(chunks: list[Any], kind: str) -> list[dict[str, Any]]:
    out = []
    for chunk in chunks:
        extra = chunk.model_extra or {}
        if "verification" in extra and extra["verification"]["type"] == kind:
            out.append(extra["verification"])
    return out


def _audit(proxy: RunningProxy) -> list[dict[str, Any]]:
    path = Path(proxy.settings.audit.jsonl or "")
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def test_supported_answer_passes_clean(verifying: RunningProxy, emulator: RunningEmulator) -> None:
    emulator.emulator.reply = CLEAN
    response = _client(verifying).chat.completions.with_raw_response.create(
        model="gpt-x", messages=QUESTION, extra_body=_options()
    )
    completion = response.parse()
    assert completion.choices[0].message.content == CLEAN
    report = (completion.model_extra or {})["verification"]
    assert report["status"] == "verified"
    assert [s["verdict"] for s in report["sentences"]] == ["supported"]
    span = report["sentences"][0]["evidence"][0]
    assert span["pmid"] == "12442934"
    assert span["text"] == DOC["text"][span["start"] : span["end"]]
    assert (report["support"], report["risk"]) == (pytest.approx(1.0), pytest.approx(0.0))
    assert response.headers["x-veriproxy-status"] == "verified"
    assert float(response.headers["x-veriproxy-risk"]) == pytest.approx(0.0, abs=1e-3)
    assert float(response.headers["x-veriproxy-support"]) == pytest.approx(1.0, abs=1e-3)
    # The evidence reached the model inside the injected system message.
    sent = emulator.stats.requests[-1]["messages"]
    assert sent[0]["role"] == "system" and "[PMID:12442934]" in sent[0]["content"]
    assert _audit(verifying)[-1]["status"] == "verified"


def test_streamed_annotations_keep_naive_loops_working(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {FABRICATED}"
    # A plain HTTP client sees ordinary chunks plus annotation chunks without content (the
    # answer's citations ride in the report chunk's delta.annotations).
    with httpx.stream(
        "POST",
        f"{verifying.base_url}/chat/completions",
        json={"model": "gpt-x", "messages": QUESTION, "stream": True, **_options()},
        timeout=60,
    ) as response:
        events = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(
        set(c["choices"][0]["delta"]) <= {"annotations"} for c in chunks if "verification" in c
    )
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == f"{SUPPORTED} {FABRICATED}"  # annotate mode streams the answer untouched
    kinds = [c["verification"]["type"] for c in chunks if "verification" in c]
    assert kinds == ["sentence", "sentence", "report"]
    verdicts = [
        c["verification"]["verdict"]
        for c in chunks
        if c.get("verification", {}).get("type") == "sentence"
    ]
    assert verdicts == ["supported", "invalid_citation"]
    # Every annotation is the published schema's object plus the envelope's "type".
    for chunk in chunks:
        if "verification" in chunk:
            annotation = dict(chunk["verification"])
            name = {"sentence": "sentence_annotation", "report": "response_report"}[
                annotation.pop("type")
            ]
            schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
            jsonschema.validate(annotation, schema)


def test_async_sdk_reads_annotations(verifying: RunningProxy, emulator: RunningEmulator) -> None:
    import asyncio

    emulator.emulator.reply = SUPPORTED

    async def run() -> list[Any]:
        client = openai.AsyncOpenAI(base_url=verifying.base_url, api_key="sk-x", max_retries=0)
        async with client:
            stream = await client.chat.completions.create(
                model="gpt-x", messages=QUESTION, stream=True, extra_body=_options()
            )
            return [chunk async for chunk in stream]

    chunks = asyncio.run(run())
    assert _content(chunks) == SUPPORTED
    (report,) = _annotations(chunks, "report")
    # Supported, but at a confidence below the shipped review threshold (the model's stance on
    # this near-copy of the conclusion is 0.51): never "verified" (test_needs_review_e2e.py).
    assert report["status"] == "needs_review"
    assert [s["verdict"] for s in report["sentences"]] == ["supported"]


def test_gate_blocks_contradicted_dose_before_any_of_it_streams(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE} The trial enrolled fifty patients."
    chunks = _stream(verifying, "clinical-strict")
    text = _content(chunks)
    assert text.startswith(SUPPORTED)
    assert "200 mg" not in text and "bupivacaine" not in text
    # Not in the annotations either: a withheld sentence keeps its verdict, not its words.
    assert "200 mg" not in json.dumps([c.model_dump() for c in chunks])
    assert "withheld" in text  # the policy's block message
    # The report comes before the finish chunk: clients stop reading at finish_reason.
    assert chunks[-2].verification["type"] == "report"  # type: ignore[attr-defined]
    assert chunks[-1].choices[0].finish_reason == "content_filter"
    sentences = _annotations(chunks, "sentence")
    assert sentences[-1]["verdict"] == "contradicted" and sentences[-1]["action"] == "block"
    assert sentences[-1]["harm"] == 5
    (report,) = _annotations(chunks, "report")
    assert report["status"] == "blocked"
    assert "block-contradicted-high-harm" in report["rules_fired"]
    assert _audit(verifying)[-1]["status"] == "blocked"


def test_gate_redacts_fabricated_citation(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {FABRICATED}"
    chunks = _stream(verifying, "clinical-strict")
    text = _content(chunks)
    assert "31415926" not in text and "wound infection" not in text
    assert "wound infection" not in json.dumps([c.model_dump() for c in chunks])
    assert text.startswith(SUPPORTED) and "[removed:" in text
    (report,) = _annotations(chunks, "report")
    assert report["status"] == "redacted"
    fabricated = report["sentences"][1]
    assert fabricated["verdict"] == "invalid_citation" and fabricated["action"] == "redact"
    # Withheld: the client is not told which PMID it cited (issue 26 item 10); the audit is.
    assert fabricated["withheld"] and fabricated["citations"] == []
    [record] = _audit(verifying)
    assert "31415926" in record["sentences"][1]["pmids"]


def test_an_answer_whose_only_claim_cites_a_fabricated_pmid_is_at_risk(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    """Protocol 2.0: ``risk`` rises with what is not supported; 1.x sent 0.0000 here."""
    emulator.emulator.reply = FABRICATED
    response = _client(verifying).chat.completions.with_raw_response.create(
        model="gpt-x", messages=QUESTION, extra_body=_options()
    )
    report = (response.parse().model_extra or {})["verification"]
    assert [s["verdict"] for s in report["sentences"]] == ["invalid_citation"]
    assert report["risk"] >= 0.5 and report["sentences"][0]["risk"] >= 0.5
    assert report["support"] == pytest.approx(1.0 - report["risk"])
    assert float(response.headers["x-veriproxy-risk"]) >= 0.5
    assert float(response.headers["x-veriproxy-support"]) <= 0.5
    assert report["schema_version"] == "2.5"
    recorded = _audit(verifying)[-1]
    assert recorded["risk"] == report["risk"] and recorded["support"] == report["support"]


def test_non_streaming_block_returns_content_filter(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE}"
    completion = _client(verifying).chat.completions.create(
        model="gpt-x", messages=QUESTION, extra_body=_options("clinical-strict")
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "content_filter"
    assert "200 mg" not in (choice.message.content or "")
    assert "200 mg" not in completion.model_dump_json()
    assert (completion.model_extra or {})["verification"]["status"] == "blocked"


def test_shadow_mode_changes_nothing_but_records(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    answer = f"{SUPPORTED} {WRONG_DOSE} {FABRICATED}"
    emulator.emulator.reply = answer
    chunks = _stream(verifying, "audit-only")
    assert _content(chunks) == answer
    assert all(c.choices[0].finish_reason != "content_filter" for c in chunks if c.choices)
    (report,) = _annotations(chunks, "report")
    assert report["shadow"] is True and report["policy"] == "audit-only"
    assert report["rules_fired"], "shadow mode still evaluates and records the rules"
    record = _audit(verifying)[-1]
    assert record["shadow"] is True and record["rules_fired"] == report["rules_fired"]


@pytest.mark.parametrize(
    ("policy", "status", "blocked"),
    [("clinical-strict", "blocked", True), ("default", None, False)],
)
def test_verifier_timeout_follows_on_verifier_error(
    proxy_factory: ProxyFactory,
    emulator: RunningEmulator,
    policy: str,
    status: str | None,
    blocked: bool,
) -> None:
    proxy = proxy_factory({"verification": {"enabled": True, "timeout_seconds": 0.000001}})
    emulator.emulator.reply = SUPPORTED
    completion = _client(proxy).chat.completions.create(
        model="gpt-x", messages=QUESTION, extra_body=_options(policy)
    )
    report = (completion.model_extra or {})["verification"]
    assert report["status"] != "verified"
    # Either deadline may be the one that stops it: the session's, around the worker thread
    # ("timed out"), or the verifier's own between sentence batches ("did not finish within"),
    # whichever the scheduler lets act first.
    assert "timed out" in report["error"] or "did not finish within" in report["error"]
    if blocked:
        assert report["status"] == status
        assert completion.choices[0].finish_reason == "content_filter"
        assert SUPPORTED not in (completion.choices[0].message.content or "")
    else:
        assert completion.choices[0].message.content == SUPPORTED
        assert report["status"] in {"unverified", "flagged"}


def test_unknown_policy_is_a_400_before_the_upstream_is_called(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        _client(verifying).chat.completions.create(
            model="gpt-x", messages=QUESTION, extra_body=_options("no-such-policy")
        )
    assert caught.value.body["param"] == "veriproxy.policy"  # type: ignore[index]
    assert emulator.stats.requests == []


def test_verify_false_passes_through(verifying: RunningProxy, emulator: RunningEmulator) -> None:
    emulator.emulator.reply = SUPPORTED
    completion = _client(verifying).chat.completions.create(
        model="gpt-x", messages=QUESTION, extra_body={"veriproxy": {"verify": False}}
    )
    assert "verification" not in (completion.model_extra or {})


def test_answer_without_evidence_says_so(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    emulator.emulator.reply = "Ibuprofen before hip surgery increases perioperative blood loss."
    completion = _client(verifying).chat.completions.create(model="gpt-x", messages=QUESTION)
    report = (completion.model_extra or {})["verification"]
    assert report["notes"] == ["no evidence retrieved"]
    assert report["status"] == "flagged" and report["error"] is None  # risk 1 > 0.5
    assert [s["verdict"] for s in report["sentences"]] == ["uncited"]
    assert report["faithful"] is False


@pytest.mark.parametrize(
    "lead", ["Patients in the trial were pretreated with:", "**Drugs in the trial:**"]
)
def test_a_streamed_list_of_names_is_verified_item_by_item(
    verifying: RunningProxy, emulator: RunningEmulator, lead: str
) -> None:
    """A list of bare names went out `not_checkworthy`, so a wrong drug passed as talk and the
    answer was `verified`. Each item is now the claim its lead makes of it or, under a label, a
    name its citation must bear out."""
    emulator.emulator.reply = (
        f"{CLEAN}\n\n{lead}\n- ibuprofen [PMID:12442934]\n- ketoprofen [PMID:12442934]\n"
    )
    chunks = _stream(verifying, None)
    (report,) = _annotations(chunks, "report")
    ibuprofen, ketoprofen = report["sentences"][-2:]
    assert ibuprofen["verdict"] in ("supported", "not_checkworthy"), ibuprofen
    assert ketoprofen["verdict"] == "unsupported", ketoprofen
    failed = [c for c in (ketoprofen["claims"] or [ketoprofen])[0]["checks"] if not c["passed"]]
    assert any(c["name"] == "entity" and "ketoprofen" in c["detail"] for c in failed), failed
    assert report["status"] != "verified" and report["faithful"] is False


def test_gate_withholds_a_wrong_dose_written_as_a_list_item(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    """A tenfold dose as a list item under its lead never reaches the client in gate mode,
    read with its lead as it was read alone before: its number contradicts the abstract."""
    emulator.emulator.reply = (
        f"{CLEAN}\n\nAll patients were injected intrathecally with:\n"
        "- bupivacaine 200 mg [PMID:12442934]\n- morphine 0.1 mg [PMID:12442934]\n"
    )
    chunks = _stream(verifying, "clinical-strict")
    text = _content(chunks)
    assert text.startswith(CLEAN)
    assert "200 mg" not in text and "200 mg" not in json.dumps([c.model_dump() for c in chunks])
    (report,) = _annotations(chunks, "report")
    dose = next(s for s in report["sentences"] if s["verdict"] == "contradicted")
    assert dose["verdict"] == "contradicted" and dose["action"] in ("block", "redact")
    assert dose["withheld"]  # its words are not in the annotation either
    assert report["status"] in ("blocked", "redacted")


def test_a_streamed_list_cited_once_at_its_end_is_verified_item_by_item(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    """A list cited only by its last item: the names before it went out `uncited`, checked
    against no record. Each is now checked against what the list's end cites: a drug that
    abstract never names is `unsupported`, with the citation it was read with."""
    emulator.emulator.reply = (
        f"{CLEAN}\n\nPatients in the trial were pretreated with:\n"
        "- ketoprofen\n- ibuprofen [PMID:12442934]\n"
    )
    (report,) = _annotations(_stream(verifying, None), "report")
    ketoprofen, ibuprofen = report["sentences"][-2:]
    assert ketoprofen["verdict"] == "unsupported", ketoprofen
    assert ketoprofen["lead_citations"] == ["12442934"] and ketoprofen["citations"] == []
    failed = [c for c in (ketoprofen["claims"] or [ketoprofen])[0]["checks"] if not c["passed"]]
    assert any(c["name"] == "entity" and "ketoprofen" in c["detail"] for c in failed), failed
    assert ibuprofen["lead_citations"] == [] and ibuprofen["verdict"] != "unsupported"


def test_a_streamed_paragraph_cited_once_at_its_end_is_verified_sentence_by_sentence(
    verifying: RunningProxy, emulator: RunningEmulator
) -> None:
    """A paragraph cited only by its last sentence: the sentences before it went out `uncited`,
    though a reader takes that citation for the paragraph. Each is now checked against what the
    paragraph's end cites: a tenfold dose is `contradicted`, with the citation it was read
    with, and a sentence the abstract bears out is no longer `uncited`."""
    dose = WRONG_DOSE.removesuffix(" [PMID:12442934].") + "."
    emulator.emulator.reply = (
        "Fifty patients scheduled for total hip replacement were allocated to two groups. "
        f"{dose} {CLEAN}"
    )
    (report,) = _annotations(_stream(verifying, None), "report")
    allocated, wrong_dose, clean = report["sentences"]
    for sentence in (allocated, wrong_dose):
        assert sentence["lead_citations"] == ["12442934"] and sentence["citations"] == []
    assert allocated["verdict"] != "uncited", allocated
    assert wrong_dose["verdict"] == "contradicted", wrong_dose
    assert clean["lead_citations"] == [] and clean["verdict"] == "supported"
