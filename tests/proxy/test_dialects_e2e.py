"""Legacy completions and the Responses API through the real proxy, the real verifier and the
emulator, with the real openai SDK: evidence injected in the API's own place, the answer
verified like chat, streamed in the API's own events, and policies enforced (a gate-mode
block ends a response ``incomplete`` / ``content_filter``)."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import litellm  # at import time: imported inside a test, it breaks later litellm calls
import openai
import pytest
from pydantic import BaseModel

from proxy.dialects import SENTENCE_EVENT
from proxy.evidence.inject import CONTRACT
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory, sdk_client

ANSWER = "Aspirin reduces fever in adults [PMID:1]. The moon is made of green cheese."
QUESTION = "Does aspirin reduce fever?"
DOCS = {
    "veriproxy": {
        "documents": [
            {"pmid": "1", "title": "Aspirin", "abstract": "Aspirin reduces fever in adults."}
        ]
    }
}
CONTRACT_HEAD = CONTRACT.split(".")[0]

POLICIES = {
    "gate-block.yaml": """
name: gate-block
stream_mode: gate
sentence_rules:
  - name: block-uncited
    when:
      verdict: [uncited, unsupported]
    action: block
""",
    "legacy-off.yaml": """
name: legacy-off
legacy_completions: unverified
""",
}


@pytest.fixture
def verified(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> RunningProxy:
    for name, text in POLICIES.items():
        (tmp_path / name).write_text(text)
    emulator.emulator.reply = ANSWER
    return proxy_factory({"verification": {"enabled": True, "policies_dir": str(tmp_path)}})


def client(proxy: RunningProxy) -> openai.OpenAI:
    return sdk_client(proxy.base_url, "sk-client")


def options(policy: str | None = None) -> dict[str, Any]:
    if policy is None:
        return DOCS
    return {"veriproxy": {**DOCS["veriproxy"], "policy": policy}}


def metric(proxy: RunningProxy, name: str) -> list[str]:
    return [line for line in httpx.get(f"{proxy.url}/metrics").text.splitlines() if name in line]


# -- legacy completions ----------------------------------------------------------------------


def test_completion_is_verified_with_evidence_in_the_prompt(
    verified: RunningProxy, emulator: RunningEmulator
) -> None:
    result = client(verified).completions.create(model="m", prompt=QUESTION, extra_body=options())
    assert result.choices[0].text == ANSWER
    report = result.model_extra["verification"]
    assert [s["verdict"] for s in report["sentences"]] == ["supported", "uncited"]
    prompt = emulator.stats.requests[-1]["prompt"]
    assert prompt.startswith(CONTRACT_HEAD) and prompt.endswith(QUESTION)


def test_streamed_completion_carries_annotations_then_the_report(verified: RunningProxy) -> None:
    chunks = list(
        client(verified).completions.create(
            model="m", prompt=QUESTION, stream=True, extra_body=options()
        )
    )
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == ANSWER
    annotations = [c.model_extra.get("verification") for c in chunks]
    sentences = [a for a in annotations if a and "verdict" in a]
    assert [s["verdict"] for s in sentences] == ["supported", "uncited"]
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["verification"]["status"] in ("verified", "flagged")


def test_completion_verification_cannot_apply_is_reported_unverified(
    verified: RunningProxy, emulator: RunningEmulator
) -> None:
    result = client(verified).completions.create(model="m", prompt=["one", "two"])
    assert result.model_extra["verification"]["status"] == "unverified"
    assert "not one string" in result.model_extra["verification"]["reason"]
    assert emulator.stats.requests[-1]["prompt"] == ["one", "two"]  # nothing injected
    assert any(
        'reason="not_verifiable",route="/v1/completions"} 1.0' in line
        for line in metric(verified, "veriproxy_unverified_requests_total")
    )


def test_policy_passes_legacy_completions_through_unverified(
    verified: RunningProxy, emulator: RunningEmulator
) -> None:
    response = client(verified).completions.with_raw_response.create(
        model="m", prompt=QUESTION, extra_body=options("legacy-off")
    )
    report = response.parse().model_extra["verification"]
    assert report["status"] == "unverified"
    assert "legacy-off" in report["reason"]
    assert response.headers["x-veriproxy-status"] == "unverified"
    assert emulator.stats.requests[-1]["prompt"] == QUESTION


# -- responses -------------------------------------------------------------------------------


def test_response_is_verified_with_evidence_in_instructions(
    verified: RunningProxy, emulator: RunningEmulator
) -> None:
    result = client(verified).responses.create(
        model="m", instructions="Be brief.", input=QUESTION, extra_body=options()
    )
    assert result.status == "completed"
    assert result.output_text == ANSWER
    report = result.model_extra["verification"]
    assert [s["verdict"] for s in report["sentences"]] == ["supported", "uncited"]
    assert report["unverified_items"] == []
    instructions = emulator.stats.requests[-1]["instructions"]
    assert instructions.startswith("Be brief.\n\n" + CONTRACT_HEAD)


def test_response_stream_carries_only_standard_events_and_the_report_at_its_end(
    verified: RunningProxy,
) -> None:
    """By default no event type of our own (openai-node's helper throws on one): the report,
    with each sentence's annotation, is in the closing response.completed."""
    with client(verified).responses.stream(
        model="m", input=QUESTION, extra_body=options()
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [e.type for e in events]
    assert not [t for t in types if t.startswith("response.verification.")]
    assert types[-1] == "response.completed"
    assert final.output_text == ANSWER
    verdicts = [s["verdict"] for s in final.model_extra["verification"]["sentences"]]
    assert verdicts == ["supported", "uncited"]


def test_response_stream_helper_gets_events_annotations_and_report_when_asked(
    verified: RunningProxy,
) -> None:
    with client(verified).responses.stream(
        model="m",
        input=QUESTION,
        extra_body=options(),
        extra_headers={"X-Veriproxy-Verification-Events": "true"},
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types.count(SENTENCE_EVENT) == 2
    assert types[-1] == "response.verification.report"
    assert types.index(SENTENCE_EVENT) < types.index("response.completed")
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == ANSWER
    assert final.output_text == ANSWER
    assert [s["verdict"] for s in final.model_extra["verification"]["sentences"]] == [
        "supported",
        "uncited",
    ]


def test_gate_block_ends_the_response_incomplete(verified: RunningProxy) -> None:
    sdk = client(verified)
    result = sdk.responses.create(model="m", input=QUESTION, extra_body=options("gate-block"))
    assert result.status == "incomplete"
    assert result.incomplete_details is not None
    assert result.incomplete_details.reason == "content_filter"
    assert "cheese" not in result.output_text
    assert result.model_extra["verification"]["status"] == "blocked"


class Finding(BaseModel):
    answer: str


def test_gate_block_of_a_structured_response_is_a_refusal_part(
    verified: RunningProxy, emulator: RunningEmulator
) -> None:
    """JSON asked for (``text.format``): its string values are verified, and a block is
    OpenAI's declined structured answer, one ``refusal`` content part and no text, which
    ``responses.parse()`` and the stream helper hand the app instead of failing on text that
    is not JSON."""
    emulator.emulator.reply = json.dumps({"answer": ANSWER})
    sdk = client(verified)
    result = sdk.responses.parse(
        model="m", input=QUESTION, text_format=Finding, extra_body=options("gate-block")
    )
    with sdk.responses.stream(
        model="m", input=QUESTION, text_format=Finding, extra_body=options("gate-block")
    ) as stream:
        events = list(stream)
        streamed = stream.get_final_response()
    assert "cheese" not in repr(events)
    for response in (result, streamed):
        assert response.status == "completed"
        assert response.output_parsed is None
        [part] = response.output[0].content
        assert part.type == "refusal" and part.refusal.startswith("This answer was withheld")
        report = response.model_extra["verification"]
        assert report["status"] == "blocked"
        assert [s["path"] for s in report["sentences"]] == ["$.content.answer"] * 2


def test_gate_block_ends_a_response_stream_completed_with_a_refusal(verified: RunningProxy) -> None:
    """Gate mode forwards no upstream event: the opening ones are rendered, in OpenAI's order,
    so the SDK's stream helper works; a block ends the stream as OpenAI ends a declined answer
    (the item's refusal part, then response.completed)."""
    with client(verified).responses.stream(
        model="m", input=QUESTION, extra_body=options("gate-block")
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    assert "cheese" not in repr(events)
    assert [e.type for e in events[:4]] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].response.id == final.id
    assert [e.type for e in events if "refusal" in e.type] == [
        "response.refusal.delta",
        "response.refusal.done",
    ]
    assert events[-1].type == "response.completed"
    assert final.status == "completed"
    text, refusal = final.output[0].content
    assert text.type == "output_text" and text.text == "Aspirin reduces fever in adults [PMID:1]."
    assert refusal.type == "refusal" and refusal.refusal.startswith("This answer was withheld")
    assert final.model_extra["verification"]["status"] == "blocked"


@pytest.fixture
def litellm_over_httpx() -> Iterator[None]:
    """litellm's default aiohttp session outlives the proxy's event loop in a test; httpx's
    client closes with it (as in tests/proxy/upstream/test_litellm_upstream.py)."""
    previous = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = True
    yield
    litellm.disable_aiohttp_transport = previous


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.usefixtures("litellm_over_httpx")
def test_chat_only_upstream_gets_responses_through_litellm(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, stream: bool
) -> None:
    """A litellm provider that speaks only chat completions: litellm translates the Responses
    call, the emulator sees a chat completion, the client gets a verified response."""
    emulator.emulator.reply = ANSWER
    chat_only = {"litellm": "custom_openai/m", "api_base": emulator.base_url, "api_key": "k"}
    proxy = proxy_factory({"verification": {"enabled": True}, "models": {"chat-only": chat_only}})
    sdk = client(proxy)
    if stream:
        with sdk.responses.stream(model="chat-only", input=QUESTION, extra_body=options()) as s:
            types = [e.type for e in s]
            result = s.get_final_response()
        assert types[-1] == "response.completed"
    else:
        result = sdk.responses.create(model="chat-only", input=QUESTION, extra_body=options())
    assert result.output_text == ANSWER
    verdicts = [s["verdict"] for s in result.model_extra["verification"]["sentences"]]
    assert verdicts == ["supported", "uncited"]
    sent = emulator.stats.requests[-1]
    assert "messages" in sent and "input" not in sent  # translated to chat by litellm
    assert CONTRACT_HEAD in sent["messages"][0]["content"]  # the evidence, via instructions


@pytest.mark.parametrize("stream", [False, True])
def test_response_report_is_stored_under_its_id(verified: RunningProxy, stream: bool) -> None:
    """Clients that drop extra fields and events fetch the report by the response's id."""
    sdk = client(verified)
    if stream:
        events = list(
            sdk.responses.create(model="m", input=QUESTION, stream=True, extra_body=options())
        )
        response_id = events[0].response.id
    else:
        response_id = sdk.responses.create(model="m", input=QUESTION, extra_body=options()).id
    stored = httpx.get(f"{verified.base_url}/chat/completions/{response_id}/verification")
    assert stored.status_code == 200, stored.text
    assert "supported" in stored.text


def test_agents_sdk_run_is_verified(verified: RunningProxy) -> None:
    """A tool-less OpenAI Agents SDK run, which speaks the Responses API by default: the
    answer arrives as the upstream wrote it and its report is reachable by the response id;
    under a gate policy a non-streamed block withholds the answer, and the agent gets the
    policy's message instead."""
    agents = pytest.importorskip("agents")
    agents.set_tracing_disabled(True)  # tracing would post to api.openai.com

    async def run(policy: str | None) -> Any:
        async with openai.AsyncOpenAI(
            base_url=verified.base_url, api_key="sk-client", max_retries=0
        ) as sdk:
            model = agents.OpenAIResponsesModel(model="m", openai_client=sdk)
            settings = agents.ModelSettings(extra_body=options(policy))
            agent = agents.Agent(name="assistant", model=model, model_settings=settings)
            return await agents.Runner.run(agent, QUESTION)

    result = asyncio.run(run(None))
    assert result.final_output == ANSWER
    response_id = result.raw_responses[-1].response_id
    stored = httpx.get(f"{verified.base_url}/chat/completions/{response_id}/verification")
    assert stored.status_code == 200, stored.text
    verdicts = [s["verdict"] for s in stored.json()["verification"]["sentences"]]
    assert verdicts == ["supported", "uncited"]

    blocked = asyncio.run(run("gate-block"))
    assert blocked.final_output.startswith("This answer was withheld")
    assert "green cheese" not in blocked.final_output


def test_agents_sdk_streamed_run_sees_a_gate_block_as_a_refusal(
    verified: RunningProxy, caplog: pytest.LogCaptureFixture
) -> None:
    """``run_streamed`` under a gate policy: the text verified before the block streams to the
    agent, and the block reaches it as a model refusal (``ModelRefusalError`` with the policy's
    message, which an ``error_handlers={"model_refusal": ...}`` entry can turn into output),
    with no "Task exception was never retrieved" after it."""
    agents = pytest.importorskip("agents")
    agents.set_tracing_disabled(True)

    async def run() -> tuple[str, BaseException | None]:
        async with openai.AsyncOpenAI(
            base_url=verified.base_url, api_key="sk-client", max_retries=0
        ) as sdk:
            model = agents.OpenAIResponsesModel(model="m", openai_client=sdk)
            settings = agents.ModelSettings(extra_body=options("gate-block"))
            agent = agents.Agent(name="assistant", model=model, model_settings=settings)
            streamed = agents.Runner.run_streamed(agent, QUESTION)
            deltas = []
            try:
                async for event in streamed.stream_events():
                    data = getattr(event, "data", None)
                    if getattr(data, "type", None) == "response.output_text.delta":
                        deltas.append(data.delta)
            except agents.ModelRefusalError as exc:
                return "".join(deltas), exc
            return "".join(deltas), None

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        text, error = asyncio.run(run())
        gc.collect()  # asyncio reports a task's unretrieved exception when the task is collected
    assert "never retrieved" not in caplog.text
    assert text == "Aspirin reduces fever in adults [PMID:1]."
    assert isinstance(error, agents.ModelRefusalError)
    assert error.refusal.startswith("This answer was withheld")
    assert "green cheese" not in error.refusal


@pytest.mark.parametrize("stream", [False, True])
def test_agents_sdk_chat_completions_model_reaches_the_report_by_request_id(
    verified: RunningProxy, stream: bool
) -> None:
    """With ``OpenAIChatCompletionsModel`` the Agents SDK keeps no response id (None, or
    ``__fake_id__`` when streamed), but each raw response's ``request_id`` is the proxy's
    ``X-Request-Id``, under which the report is stored: ``fetch_report`` reaches it."""
    agents = pytest.importorskip("agents")
    from veriproxy.client import fetch_report

    agents.set_tracing_disabled(True)

    async def run() -> Any:
        async with openai.AsyncOpenAI(
            base_url=verified.base_url, api_key="sk-client", max_retries=0
        ) as sdk:
            model = agents.OpenAIChatCompletionsModel(model="m", openai_client=sdk)
            settings = agents.ModelSettings(extra_body=options())
            agent = agents.Agent(name="assistant", model=model, model_settings=settings)
            if not stream:
                return await agents.Runner.run(agent, QUESTION)
            streamed = agents.Runner.run_streamed(agent, QUESTION)
            async for _ in streamed.stream_events():
                pass
            return streamed

    result = asyncio.run(run())
    assert result.final_output == ANSWER
    (raw,) = result.raw_responses
    assert raw.request_id
    report = fetch_report(verified.base_url, raw.request_id, api_key="sk-client")
    assert [s["verdict"] for s in report["sentences"]] == ["supported", "uncited"]
