"""A litellm provider behind the proxy: ``anthropic/...`` against a respx-mocked Messages API.

The Anthropic API cannot run here, so respx stands in for it, answering in its real wire
format (JSON messages and its SSE event stream); loopback traffic (SDK -> proxy) passes through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import litellm  # at import time: imported inside a test, it breaks later litellm calls
import openai
import pytest
import respx

from proxy.testing.server_thread import RunningProxy
from tests.conftest import sdk_client

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
ANTHROPIC_KEY = "sk-ant-test-key-0123456789"
MESSAGES = [{"role": "user", "content": "Does aspirin inhibit platelets?"}]

# litellm's own types trip a pydantic UserWarning on first use (not ours to fix).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Item .*ReadOnly. qualifier:UserWarning"),
    pytest.mark.slow,  # importing litellm takes seconds
]

MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-3-5-haiku-20241022",
    "content": [{"type": "text", "text": "Yes, irreversibly."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 4},
}

STREAM_EVENTS = [
    ("message_start", {"type": "message_start", "message": {**MESSAGE, "content": [],
        "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 1}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
        "content_block": {"type": "text", "text": ""}}),
    ("ping", {"type": "ping"}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": "Yes,"}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": " irreversibly."}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_delta", {"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 4}}),
    ("message_stop", {"type": "message_stop"}),
]  # fmt: skip


def sse(events: list[tuple[str, dict[str, object]]]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
    )


@pytest.fixture
def anthropic() -> Iterator[respx.MockRouter]:
    # respx intercepts httpx; litellm's default aiohttp transport would bypass it.
    previous = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = True
    with respx.mock(assert_all_called=False) as router:
        router.route(host="127.0.0.1").pass_through()
        yield router
    litellm.disable_aiohttp_transport = previous


@pytest.fixture
def claude_proxy(proxy_factory) -> RunningProxy:
    return proxy_factory(
        {
            "models": {
                "claude": {
                    "litellm": "anthropic/claude-3-5-haiku-20241022",
                    "api_key": ANTHROPIC_KEY,
                }
            }
        }
    )


def client(proxy: RunningProxy) -> openai.OpenAI:
    return sdk_client(proxy.base_url, "sk-client")


def test_non_streaming_translated_to_openai_format(
    anthropic: respx.MockRouter, claude_proxy: RunningProxy
) -> None:
    route = anthropic.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=MESSAGE))
    completion = client(claude_proxy).chat.completions.create(
        model="claude", messages=MESSAGES, max_tokens=50
    )
    assert completion.choices[0].message.content == "Yes, irreversibly."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.completion_tokens == 4
    sent = route.calls.last.request
    assert sent.headers["x-api-key"] == ANTHROPIC_KEY
    assert json.loads(sent.content)["messages"][0]["content"][0]["text"] == MESSAGES[0]["content"]


def test_streaming_translated_to_openai_chunks(
    anthropic: respx.MockRouter, claude_proxy: RunningProxy
) -> None:
    anthropic.post(ANTHROPIC_URL).mock(
        return_value=httpx.Response(
            200, content=sse(STREAM_EVENTS), headers={"content-type": "text/event-stream"}
        )
    )
    body = {"model": "claude", "messages": MESSAGES, "max_tokens": 50, "stream": True}
    raw = httpx.post(f"{claude_proxy.base_url}/chat/completions", json=body, timeout=10).content
    assert raw.endswith(b"data: [DONE]\n\n")
    stream = client(claude_proxy).chat.completions.create(
        model="claude", messages=MESSAGES, max_tokens=50, stream=True
    )
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == (
        "Yes, irreversibly."
    )
    assert any(c.choices and c.choices[0].finish_reason == "stop" for c in chunks)


def test_provider_error_keeps_status_and_scrubs_key(
    anthropic: respx.MockRouter, claude_proxy: RunningProxy
) -> None:
    anthropic.post(ANTHROPIC_URL).mock(
        return_value=httpx.Response(
            429,
            json={
                "type": "error",
                "error": {"type": "rate_limit_error", "message": f"slow down {ANTHROPIC_KEY}"},
            },
        )
    )
    response = httpx.post(
        f"{claude_proxy.base_url}/chat/completions",
        json={"model": "claude", "messages": MESSAGES, "max_tokens": 50},
        timeout=10,
    )
    assert response.status_code == 429
    assert "slow down" in response.json()["error"]["message"]
    assert ANTHROPIC_KEY not in response.text


CHAT_ONLY_URL = "https://chat-only.test/v1"
HUGE = "Z" * 16_384  # one delta, four times the event limit below


def _chat_chunk(content: str, finish: str | None = None) -> dict[str, object]:
    delta = {"role": "assistant", "content": content} if content else {}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [choice]}  # fmt: skip


@pytest.mark.parametrize("route", ["chat", "responses"])
def test_an_oversized_event_through_litellm_ends_the_stream(
    anthropic: respx.MockRouter, proxy_factory, route: str
) -> None:
    """limits.max_event_bytes holds for a litellm provider as for the httpx path (issue 26):
    a hostile provider's one oversized event ends the stream with upstream_protocol_error, on
    chat and on /v1/responses (which litellm translates to chat), and none of it is relayed."""
    events = [_chat_chunk("Hello "), _chat_chunk(HUGE), _chat_chunk("", "stop")]
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    anthropic.post(f"{CHAT_ONLY_URL}/chat/completions").mock(
        return_value=httpx.Response(
            200, content=body + b"data: [DONE]\n\n", headers={"content-type": "text/event-stream"}
        )
    )
    chat_only = {"litellm": "custom_openai/m", "api_base": CHAT_ONLY_URL, "api_key": ANTHROPIC_KEY}
    proxy = proxy_factory({"models": {"chat-only": chat_only}, "limits": {"max_event_bytes": 4096}})
    request: dict[str, object] = {"model": "chat-only", "stream": True}
    if route == "chat":
        path, request["messages"] = "chat/completions", MESSAGES
    else:
        path, request["input"] = "responses", MESSAGES[0]["content"]
    raw = httpx.post(f"{proxy.base_url}/{path}", json=request, timeout=10).content
    assert b"Hello" in raw  # the stream ran until the oversized event
    assert HUGE[:64].encode() not in raw
    assert b"upstream_protocol_error" in raw and b"over the limit of 4096 bytes" in raw
