"""Every error case of the proxy, in OpenAI's envelope with the right status."""

from __future__ import annotations

import socket

import httpx
import openai
import pytest

from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import sdk_client

MESSAGES = [{"role": "user", "content": "hello"}]
UPSTREAM_KEY = "sk-upstream-secret-abcdef123456"
# One upstream attempt: these tests are about what a failure looks like, not about retries.
NO_RETRY = {"retry": {"max_attempts": 1}}


@pytest.fixture
def proxy(proxy_factory) -> RunningProxy:
    return proxy_factory(NO_RETRY)


def post(proxy: RunningProxy, **kwargs: object) -> httpx.Response:
    return httpx.post(f"{proxy.base_url}/chat/completions", timeout=10, **kwargs)  # type: ignore[arg-type]


def assert_envelope(response: httpx.Response, status: int) -> dict[str, object]:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert isinstance(error["message"], str) and error["message"]
    return error


def test_malformed_json_is_400(proxy: RunningProxy) -> None:
    error = assert_envelope(post(proxy, content=b'{"model": "m", '), 400)
    assert "not valid JSON" in str(error["message"])
    assert error["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": MESSAGES}, "model"),
        ({"model": "m"}, "messages"),
        ({"model": "m", "messages": []}, "messages"),
        ({"model": "m", "messages": [{"content": "no role"}]}, "messages.0.role"),
        ({"model": "m", "messages": MESSAGES, "stream": "yes"}, "stream"),
        ({"model": "m", "messages": MESSAGES, "veriproxy": {"retrieve": "maybe"}}, None),
    ],
)
def test_invalid_fields_are_400_naming_the_field(
    proxy: RunningProxy, body: dict[str, object], param: str | None
) -> None:
    error = assert_envelope(post(proxy, json=body), 400)
    if param is None:
        assert str(error["param"]).startswith("veriproxy")
    else:
        assert error["param"] == param


def test_non_object_body_is_400(proxy: RunningProxy) -> None:
    assert_envelope(post(proxy, json=[1, 2]), 400)


def test_body_over_limit_is_413(proxy_factory) -> None:
    proxy = proxy_factory({**NO_RETRY, "max_body_bytes": 200})
    big = [{"role": "user", "content": "x" * 500}]
    error = assert_envelope(post(proxy, json={"model": "m", "messages": big}), 413)
    assert error["code"] == "request_too_large"


def test_chunked_body_over_limit_is_413(proxy_factory) -> None:
    proxy = proxy_factory({**NO_RETRY, "max_body_bytes": 200})

    def chunks():  # no content-length: the limit applies while reading
        yield b'{"model": "m", "messages": [{"role": "user", "content": "'
        yield b"x" * 500
        yield b'"}]}'

    assert_envelope(post(proxy, content=chunks()), 413)


def test_unknown_model_is_404_when_rejecting(proxy_factory, emulator: RunningEmulator) -> None:
    proxy = proxy_factory(
        {
            **NO_RETRY,
            "unknown_model": "reject",
            "models": {"known": {"base_url": emulator.base_url}},
        }
    )
    client = sdk_client(proxy.base_url, "k")
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="nope", messages=MESSAGES)
    assert info.value.code == "model_not_found"
    assert client.chat.completions.create(model="known", messages=MESSAGES).choices


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("status", "exc_type"),
    [
        (400, openai.BadRequestError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
def test_upstream_http_errors_keep_status_and_message(
    proxy: RunningProxy, status: int, exc_type: type[openai.APIStatusError], stream: bool
) -> None:
    client = sdk_client(proxy.base_url, "k")
    with pytest.raises(exc_type) as info:
        client.chat.completions.create(
            model=f"emu-error-{status}", messages=MESSAGES, stream=stream
        )
    assert info.value.status_code == status
    assert info.value.body["message"] == f"emulated error {status}"  # type: ignore[index]
    assert info.value.code == f"emulated_{status}"


def test_upstream_429_relays_retry_after(proxy: RunningProxy) -> None:
    response = post(proxy, json={"model": "emu-error-429", "messages": MESSAGES})
    assert_envelope(response, 429)
    assert response.headers["retry-after"] == "0"


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_timeout_is_504(proxy_factory, emulator: RunningEmulator, stream: bool) -> None:
    proxy = proxy_factory(
        {
            **NO_RETRY,
            "default_upstream": {"base_url": emulator.base_url},
            "timeouts": {"read": 0.2},
        }
    )
    body = {"model": "emu-slow-2000", "messages": MESSAGES, "stream": stream}
    error = assert_envelope(post(proxy, json=body), 504)
    assert error["type"] == "timeout"


def test_unreachable_upstream_is_502(proxy_factory) -> None:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proxy = proxy_factory(
        {**NO_RETRY, "default_upstream": {"base_url": f"http://127.0.0.1:{port}/v1"}}
    )
    for stream in (False, True):
        body = {"model": "m", "messages": MESSAGES, "stream": stream}
        error = assert_envelope(post(proxy, json=body), 502)
        assert error["code"] == "upstream_unavailable"
        assert str(port) not in str(error["message"])


def test_upstream_non_json_body_is_502(proxy: RunningProxy) -> None:
    response = post(proxy, json={"model": "emu-malformed", "messages": MESSAGES})
    error = assert_envelope(response, 502)
    assert error["code"] == "upstream_protocol_error"


def test_upstream_dying_before_response_is_502(proxy: RunningProxy) -> None:
    error = assert_envelope(post(proxy, json={"model": "emu-die", "messages": MESSAGES}), 502)
    assert error["code"] == "upstream_unavailable"


def test_upstream_key_never_reaches_response_or_metrics(
    proxy_factory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory(
        {**NO_RETRY, "default_upstream": {"base_url": emulator.base_url, "api_key": UPSTREAM_KEY}}
    )
    for stream in (False, True):
        body = {"model": "emu-error-401", "messages": MESSAGES, "stream": stream}
        response = post(proxy, json=body)
        error = assert_envelope(response, 401)
        assert UPSTREAM_KEY not in response.text
        assert "[redacted]" in str(error["message"])
    assert emulator.stats.headers[-1]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    metrics = httpx.get(f"{proxy.url}/metrics").text
    assert UPSTREAM_KEY not in metrics


def test_client_key_echoed_by_upstream_is_scrubbed(proxy: RunningProxy) -> None:
    response = post(
        proxy,
        json={"model": "emu-error-401", "messages": MESSAGES},
        headers={"authorization": "Bearer sk-client-own-key-987654321"},
    )
    assert_envelope(response, 401)
    assert "sk-client-own-key-987654321" not in response.text


def test_unknown_route_is_404_envelope(proxy: RunningProxy) -> None:
    root = proxy.base_url.removesuffix("/v1")
    error = assert_envelope(httpx.get(f"{root}/nothing-here"), 404)
    assert error["code"] == "not_found"


def test_unknown_v1_route_answers_with_the_upstreams_own_error(proxy: RunningProxy) -> None:
    """Below /v1 the proxy relays what it does not serve; the upstream's 404 comes back."""
    error = assert_envelope(httpx.get(f"{proxy.base_url}/nothing-here"), 404)
    assert error["message"] == "upstream returned HTTP 404: Not Found"


def test_wrong_method_is_405_envelope(proxy: RunningProxy) -> None:
    assert_envelope(httpx.get(f"{proxy.base_url}/chat/completions"), 405)
