"""The real openai SDK against the running proxy, in front of the running upstream emulator."""

from __future__ import annotations

import json
import re

import httpx
import openai
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client

MESSAGES = [{"role": "user", "content": "Aspirin inhibits platelet aggregation."}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_pubmed",
            "description": "Search PubMed",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]


def normalise(raw: bytes) -> bytes:
    """The upstream's bytes with what differs per call (id, timestamp) blanked."""
    raw = re.sub(rb'"id": ?"chatcmpl-[^"]+"', b'"id": ""', raw)
    return re.sub(rb'"created": ?\d+', b'"created": 0', raw)


def client(proxy: RunningProxy) -> openai.OpenAI:
    return sdk_client(proxy.base_url, "sk-client-key-123456")


def test_non_streaming_completion_round_trips(proxy: RunningProxy) -> None:
    completion = client(proxy).chat.completions.create(model="gpt-x", messages=MESSAGES)
    assert completion.choices[0].message.content == MESSAGES[0]["content"]
    assert completion.model == "gpt-x"
    assert completion.usage is not None and completion.usage.completion_tokens == 4


def test_streaming_with_usage(proxy: RunningProxy) -> None:
    stream = client(proxy).chat.completions.create(
        model="gpt-x", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == MESSAGES[0]["content"]
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


async def test_async_client_streaming_and_not(proxy: RunningProxy) -> None:
    async with openai.AsyncOpenAI(
        base_url=proxy.base_url, api_key="sk-client-key-123456", max_retries=0
    ) as aclient:
        completion = await aclient.chat.completions.create(model="m", messages=MESSAGES)
        stream = await aclient.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        pieces = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    assert completion.choices[0].message.content == "".join(pieces)


@pytest.mark.parametrize("stream", [False, True])
def test_tool_calls_pass_through(proxy: RunningProxy, stream: bool) -> None:
    c = client(proxy)
    if stream:
        chunks = list(
            c.chat.completions.create(model="m", messages=MESSAGES, tools=TOOLS, stream=True)
        )
        calls = [tc for ch in chunks for tc in (ch.choices[0].delta.tool_calls or [])]
        name = calls[0].function.name
        arguments = "".join(tc.function.arguments or "" for tc in calls)
        finish = chunks[-1].choices[0].finish_reason
    else:
        choice = c.chat.completions.create(model="m", messages=MESSAGES, tools=TOOLS).choices[0]
        assert choice.message.tool_calls is not None
        name = choice.message.tool_calls[0].function.name
        arguments = choice.message.tool_calls[0].function.arguments
        finish = choice.finish_reason
    assert name == "search_pubmed"
    assert json.loads(arguments) == {"query": "emulated"}
    assert finish == "tool_calls"


def test_every_field_reaches_upstream_untouched(
    proxy: RunningProxy, emulator: RunningEmulator
) -> None:
    client(proxy).chat.completions.create(
        model="gpt-x",
        messages=MESSAGES,
        tools=TOOLS,
        tool_choice="auto",
        response_format={"type": "json_object"},
        n=2,
        stop=["\n\n"],
        logprobs=True,
        top_logprobs=2,
        seed=7,
        temperature=0.2,
        extra_body={"future_field": {"nested": [1, 2]}, "veriproxy": {"retrieve": False}},
    )
    sent = emulator.stats.requests[-1]
    assert sent["future_field"] == {"nested": [1, 2]}
    assert "veriproxy" not in sent
    for key, value in {
        "tools": TOOLS,
        "tool_choice": "auto",
        "response_format": {"type": "json_object"},
        "n": 2,
        "stop": ["\n\n"],
        "logprobs": True,
        "top_logprobs": 2,
        "seed": 7,
        "temperature": 0.2,
    }.items():
        assert sent[key] == value


def test_client_authorization_forwarded_without_configured_key(
    proxy: RunningProxy, emulator: RunningEmulator
) -> None:
    client(proxy).chat.completions.create(model="m", messages=MESSAGES)
    assert emulator.stats.headers[-1]["authorization"] == "Bearer sk-client-key-123456"


def test_configured_key_replaces_client_authorization(
    proxy_factory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory(
        {"default_upstream": {"base_url": emulator.base_url, "api_key": "sk-upstream-secret-9"}}
    )
    client(proxy).chat.completions.create(model="m", messages=MESSAGES)
    assert emulator.stats.headers[-1]["authorization"] == "Bearer sk-upstream-secret-9"


def test_non_streaming_body_is_byte_identical(
    proxy: RunningProxy, emulator: RunningEmulator
) -> None:
    body = {"model": "m", "messages": MESSAGES, "logprobs": True, "n": 2}
    via_proxy = httpx.post(f"{proxy.base_url}/chat/completions", json=body)
    direct = httpx.post(f"{emulator.base_url}/chat/completions", json=body)
    assert via_proxy.headers["content-type"] == "application/json"
    assert normalise(via_proxy.content) == normalise(direct.content)


def test_stream_events_are_byte_identical(proxy: RunningProxy, emulator: RunningEmulator) -> None:
    body = {"model": "m", "messages": MESSAGES, "stream": True}
    via_proxy = httpx.post(f"{proxy.base_url}/chat/completions", json=body).content
    direct = httpx.post(f"{emulator.base_url}/chat/completions", json=body).content
    assert normalise(via_proxy) == normalise(direct)
    assert via_proxy.count(b"\n\n") == direct.count(b"\n\n") > 5
    assert via_proxy.endswith(b"data: [DONE]\n\n")


def test_models_lists_configured_names(proxy_factory, emulator: RunningEmulator) -> None:
    """Configured names first, then the default upstream's own list (names it would serve)."""
    proxy = proxy_factory({"models": {"fast": {"base_url": emulator.base_url}}})
    assert [m.id for m in client(proxy).models.list()] == ["fast", "emulator"]
    rejecting = proxy_factory(
        {"models": {"fast": {"base_url": emulator.base_url}}, "unknown_model": "reject"}
    )
    assert [m.id for m in client(rejecting).models.list()] == ["fast"]


def test_model_alias_rewrites_upstream_model(proxy_factory, emulator: RunningEmulator) -> None:
    proxy = proxy_factory(
        {"models": {"fast": {"base_url": emulator.base_url, "model": "upstream-small"}}}
    )
    client(proxy).chat.completions.create(model="fast", messages=MESSAGES)
    assert emulator.stats.requests[-1]["model"] == "upstream-small"
