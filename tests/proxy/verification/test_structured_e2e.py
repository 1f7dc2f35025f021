"""Tool calls and structured (JSON) answers, verified end to end: the real openai SDK -> the
running proxy (bundled model, shipped policies) -> the emulator answering with a tool call or a
JSON body built from a real PubMedQA abstract, which the client supplies as its evidence.

Every annotation the proxy emits here is validated against the published JSON Schemas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import openai
import pytest
from pydantic import BaseModel

from policies.protocol import load_schema
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory
from tests.proxy.ibuprofen import (
    DOCUMENTS,
    FABRICATED,
    QUESTION,
    SUPPORTED,
    VERIFICATION,
    WRONG_DOSE,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "record_finding",
            "parameters": {
                "type": "object",
                "properties": {
                    "summary": {"type": "string"},
                    "pmids": {"type": "array", "items": {"type": "string"}},
                    "patients": {"type": "integer"},
                },
            },
        },
    }
]
SENTENCE_SCHEMA = load_schema("sentence_annotation")
REPORT_SCHEMA = load_schema("response_report")


class Finding(BaseModel):
    answer: str
    caveat: str
    confidence: float


@pytest.fixture
def verifying(proxy_factory: ProxyFactory, tmp_path: Path) -> RunningProxy:
    return proxy_factory(
        {"verification": VERIFICATION, "audit": {"jsonl": str(tmp_path / "audit.jsonl")}}
    )


@pytest.fixture
def client(verifying: RunningProxy) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=verifying.base_url, api_key="sk-test", max_retries=0) as c:
        yield c


def _options(policy: str) -> dict[str, Any]:
    return {"veriproxy": {"documents": DOCUMENTS, "policy": policy}}


def _audit(proxy: RunningProxy) -> list[dict[str, Any]]:
    path = Path(proxy.settings.audit.jsonl or "")
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def _metric(proxy: RunningProxy, name: str, **labels: str) -> float:
    text = httpx.get(f"{proxy.url}/metrics").text
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no sample {name}{{{want}}}")


def _annotations(chunks: list[Any]) -> list[dict[str, Any]]:
    """Every streamed annotation, each checked against its published schema."""
    out = []
    for chunk in chunks:
        annotation = (chunk.model_extra or {}).get("verification")
        if annotation is not None:
            schema = REPORT_SCHEMA if annotation["type"] == "report" else SENTENCE_SCHEMA
            jsonschema.validate(annotation, schema)
            out.append(annotation)
    return out


def _report(completion: Any) -> dict[str, Any]:
    report: dict[str, Any] = (completion.model_extra or {})["verification"]
    jsonschema.validate(report, REPORT_SCHEMA)
    return report


def _tool_args(emulator: RunningEmulator, **values: Any) -> None:
    emulator.emulator.tool_arguments = json.dumps(values)


# -- tool calls, not streamed ---------------------------------------------------------------


def test_fabricated_pmid_in_tool_arguments_is_caught_and_redacted_by_value(
    verifying: RunningProxy, emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    _tool_args(emulator, summary=f"{SUPPORTED} {FABRICATED}", pmids=["31415926"], patients=60)
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-x", messages=QUESTION, tools=TOOLS, extra_body=_options("clinical-strict")
    )
    completion = raw.parse()
    (call,) = completion.choices[0].message.tool_calls or []
    arguments = json.loads(call.function.arguments)  # still valid JSON
    assert arguments["summary"].startswith(SUPPORTED)
    assert "31415926" not in call.function.arguments and "wound" not in call.function.arguments
    assert arguments["patients"] == 60 and len(arguments["pmids"]) == 1
    report = _report(completion)
    assert report["status"] == "redacted"
    by_path = {s["path"]: s for s in report["sentences"]}
    fabricated = by_path["$.tool_calls[0].function.arguments.pmids[0]"]
    assert fabricated["verdict"] == "invalid_citation" and fabricated["action"] == "redact"
    assert {s["path"] for s in report["sentences"]} >= {
        "$.tool_calls[0].function.arguments.summary"
    }
    assert "not verified (not text): $.tool_calls[0].function.arguments.patients" in report["notes"]
    assert raw.headers["x-veriproxy-status"] == "redacted"
    assert _audit(verifying)[-1]["status"] == "redacted"


def test_tool_call_sentences_point_into_their_value(
    verifying: RunningProxy, emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    summary = f"{SUPPORTED} {FABRICATED}"
    _tool_args(emulator, summary=summary)
    completion = client.chat.completions.create(
        model="gpt-x", messages=QUESTION, tools=TOOLS, extra_body=_options("default")
    )
    report = _report(completion)
    assert [s["verdict"] for s in report["sentences"]] == ["supported", "invalid_citation"]
    for s in report["sentences"]:
        assert s["path"] == "$.tool_calls[0].function.arguments.summary"
        assert summary[s["start"] : s["end"]] == s["text"]
    # The default policy annotates: the arguments reach the client untouched.
    assert completion.choices[0].message.tool_calls[0].function.arguments == json.dumps(  # type: ignore[union-attr]
        {"summary": summary}
    )
    labels = {"model": "other", "tenant": "anonymous"}
    assert _metric(verifying, "veriproxy_fabricated_citations_total", **labels) == 1


@pytest.mark.parametrize(
    ("policy", "status", "finish"),
    [("default", "flagged", "tool_calls"), ("clinical-strict", "blocked", "content_filter")],
)
def test_unreadable_tool_arguments_are_unverified_and_the_policy_decides(
    verifying: RunningProxy,
    emulator: RunningEmulator,
    client: openai.OpenAI,
    policy: str,
    status: str,
    finish: str,
) -> None:
    emulator.emulator.tool_arguments = '{"summary": "cut off'
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-x", messages=QUESTION, tools=TOOLS, extra_body=_options(policy)
    )
    completion = raw.parse()
    report = _report(completion)
    assert report["status"] == status
    assert "arguments of tool call 0 (record_finding) are not valid JSON" in report["error"]
    assert raw.headers["x-veriproxy-status"] == status
    assert raw.headers["x-veriproxy-unverified"] == "invalid_json"
    assert completion.choices[0].finish_reason == finish
    if status == "blocked":
        assert completion.choices[0].message.tool_calls is None
    record = _audit(verifying)[-1]
    assert record["status"] == status and "not valid JSON" in record["error"]
    labels = {"route": "/v1/chat/completions", "reason": "invalid_json"}
    assert _metric(verifying, "veriproxy_unverified_requests_total", **labels) == 1


# -- tool calls, streamed -------------------------------------------------------------------


def test_streamed_tool_call_is_verified_not_reported_empty(
    emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    _tool_args(emulator, summary=f"{SUPPORTED} {FABRICATED}")
    chunks = list(
        client.chat.completions.create(
            model="gpt-x",
            messages=QUESTION,
            tools=TOOLS,
            stream=True,
            extra_body=_options("default"),
        )
    )
    annotations = _annotations(chunks)
    report = annotations[-1]
    assert report["type"] == "report" and len(report["sentences"]) == 2
    assert report["counts"]["invalid_citation"] == 1 and report["status"] == "flagged"
    assert [a["path"] for a in annotations[:-1]] == [
        "$.tool_calls[0].function.arguments.summary"
    ] * 2
    assert chunks[-1].choices[0].finish_reason == "tool_calls"  # after the report


def test_gate_holds_tool_calls_and_releases_them_redacted(
    emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    _tool_args(emulator, summary=f"{SUPPORTED} {FABRICATED}", pmids=["12442934"])
    with client.chat.completions.stream(
        model="gpt-x",
        messages=QUESTION,
        tools=TOOLS,
        extra_body=_options("clinical-strict"),
    ) as stream:
        events = list(stream)
        final = stream.get_final_completion()
    (call,) = final.choices[0].message.tool_calls or []
    arguments = json.loads(call.function.arguments)
    assert arguments["summary"].startswith(SUPPORTED) and "wound" not in call.function.arguments
    assert arguments["pmids"] == ["12442934"]  # a real PMID stays
    chunks = [e.chunk for e in events if e.type == "chunk"]
    report = _annotations(chunks)[-1]
    assert report["status"] == "redacted"
    assert "wound" not in json.dumps(report)
    assert final.choices[0].finish_reason == "tool_calls"


# -- structured output (response_format) ----------------------------------------------------


def _finding(answer: str) -> str:
    return json.dumps({"answer": answer, "caveat": "A single trial.", "confidence": 0.8})


def test_json_answer_stays_valid_and_parses_after_value_level_redaction(
    emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    emulator.emulator.reply = _finding(f"{SUPPORTED} {FABRICATED}")
    completion = client.chat.completions.parse(
        model="gpt-x",
        messages=QUESTION,
        response_format=Finding,
        extra_body=_options("clinical-strict"),
    )
    parsed = completion.choices[0].message.parsed
    assert parsed is not None and parsed.answer.startswith(SUPPORTED)
    assert "wound" not in parsed.answer and "removed" in parsed.answer
    assert parsed.caveat == "A single trial." and parsed.confidence == 0.8
    report = _report(completion)
    assert report["status"] == "redacted"
    assert {s["path"] for s in report["sentences"]} == {"$.content.answer", "$.content.caveat"}


def test_streamed_json_block_is_a_refusal_the_stream_helper_reads(
    emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    """Streamed, a blocked structured answer ends as OpenAI's declined structured answer does:
    the policy's message in ``refusal``, ``finish_reason: "stop"``; the SDK's stream helper
    (which raises on ``content_filter``) hands the app the refusal and no parsed object."""
    emulator.emulator.reply = _finding(f"{SUPPORTED} {WRONG_DOSE}")
    with client.chat.completions.stream(
        model="gpt-x",
        messages=QUESTION,
        response_format=Finding,
        extra_body=_options("clinical-strict"),
    ) as stream:
        events = [event.type for event in stream]
        final = stream.get_final_completion()
    choice = final.choices[0]
    assert choice.message.parsed is None and not choice.message.content
    assert choice.message.refusal is not None and choice.message.refusal.startswith("This answer")
    assert choice.finish_reason == "stop" and "refusal.done" in events
    # The same answer read raw: no byte of the JSON, no block text as content, one finish.
    chunks = list(
        client.chat.completions.create(
            model="gpt-x",
            messages=QUESTION,
            response_format={"type": "json_object"},
            stream=True,
            extra_body=_options("clinical-strict"),
        )
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == ""
    # Nothing of the blocked answer anywhere in the stream.
    assert "bupivacaine 200 mg" not in "".join(c.model_dump_json() for c in chunks)
    report = _annotations(chunks)[-1]
    assert report["status"] == "blocked"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert [f for f in finishes if f] == ["stop"]


def test_invalid_json_answer_is_unverified(
    verifying: RunningProxy, emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    emulator.emulator.reply = f"{SUPPORTED} (not JSON)"
    completion = client.chat.completions.create(
        model="gpt-x",
        messages=QUESTION,
        response_format={"type": "json_object"},
        extra_body=_options("research"),  # on_verifier_error: open
    )
    report = _report(completion)
    assert report["status"] == "unverified"
    assert "should be JSON but does not parse" in report["error"]
    assert report["sentences"][0]["verdict"] == "supported"  # still read as plain text


def test_blocked_json_answer_is_a_refusal_that_parse_reads(
    emulator: RunningEmulator, client: openai.OpenAI
) -> None:
    """Not streamed, a blocked structured answer is OpenAI's declined structured answer:
    ``content: null`` and the policy's message in ``refusal``, which ``parse()`` hands the app
    (it raises on a ``content_filter`` finish before reading the refusal)."""
    emulator.emulator.reply = _finding(f"{SUPPORTED} {WRONG_DOSE}")
    raw = client.chat.completions.with_raw_response.parse(
        model="gpt-x",
        messages=QUESTION,
        response_format=Finding,
        extra_body=_options("clinical-strict"),
    )
    assert raw.headers["X-Veriproxy-Status"] == "blocked"
    completion = raw.parse()
    choice = completion.choices[0]
    assert choice.message.parsed is None and choice.message.content is None
    assert choice.message.refusal is not None and choice.message.refusal.startswith("This answer")
    assert choice.finish_reason == "stop"
    assert _report(completion)["status"] == "blocked"
    # Plain text asked for: the block stays content plus a content_filter finish.
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE}"
    plain = client.chat.completions.create(
        model="gpt-x", messages=QUESTION, extra_body=_options("clinical-strict")
    ).choices[0]
    assert plain.finish_reason == "content_filter" and plain.message.refusal is None
    assert plain.message.content == choice.message.refusal


@pytest.mark.parametrize("tool_choice", ["required", "named"])
def test_blocked_forced_tool_call_is_a_refusal(
    emulator: RunningEmulator, client: openai.OpenAI, tool_choice: str
) -> None:
    """A forced tool call is the app's structured answer (instructor's TOOLS mode, ``parse()``
    with a function tool): blocked, it is declined with a ``refusal`` and ``finish_reason:
    "stop"``, no tool call, streamed or not; an optional one (``auto``) keeps the block text
    and ``content_filter``."""
    emulator.emulator.tool_arguments = _finding(f"{SUPPORTED} {WRONG_DOSE}")
    tool = openai.pydantic_function_tool(Finding)
    choice: Any = "required"
    if tool_choice == "named":
        choice = {"type": "function", "function": {"name": "Finding"}}
    common: Any = {
        "model": "gpt-x",
        "messages": QUESTION,
        "tools": [tool],
        "tool_choice": choice,
        "extra_body": _options("clinical-strict"),
    }
    message = client.chat.completions.parse(**common).choices[0]
    assert message.finish_reason == "stop" and not message.message.tool_calls
    assert message.message.content is None
    assert (message.message.refusal or "").startswith("This answer")
    chunks = list(client.chat.completions.create(**common, stream=True))
    assert "bupivacaine 200 mg" not in "".join(c.model_dump_json() for c in chunks)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert not any(d.tool_calls or d.content for d in deltas)
    assert "".join(d.refusal or "" for d in deltas) == message.message.refusal
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert [f for f in finishes if f] == ["stop"]
    assert _annotations(chunks)[-1]["status"] == "blocked"
    auto = client.chat.completions.create(**{**common, "tool_choice": "auto"}).choices[0]
    assert auto.finish_reason == "content_filter" and auto.message.refusal is None
    assert auto.message.content == message.message.refusal
