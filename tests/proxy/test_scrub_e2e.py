"""No upstream key leaves the proxy, whatever path the upstream's bytes take: a hostile upstream
echoes the key it was sent in a mid-stream error event, in relayed headers, in a non-JSON error
body (longer than the message is cut to), in a completion body and in stream content."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ProxyFactory
from tests.proxy.hostile_upstream import chunk, completion, hostile_upstream, proxy_config, sse

KEY = "UPSTREAMSECRET-0123456789abcdef"
BODY = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}


def _leaks(resp: httpx.Response) -> list[str]:
    """Where the key, or any prefix of it from 5 characters on, appears in what came back."""
    seen = resp.text + "".join(f"{k}: {v}\n" for k, v in resp.headers.items())
    return [KEY[:n] for n in range(5, len(KEY) + 1) if KEY[:n] in seen]


def test_mid_stream_error_event_is_scrubbed_and_ends_the_stream(
    proxy_factory: ProxyFactory,
) -> None:
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(
            sse(
                chunk("Hello "),
                b'data: {"error": {"message": "invalid key ' + KEY.encode() + b'", '
                b'"type": "auth", "param": "' + KEY.encode() + b'"}}\n\n',
                chunk("never sent"),
                b"data: [DONE]\n\n",
            )
        )
        proxy = proxy_factory(proxy_config(base_url, KEY))
        resp = httpx.post(
            f"{proxy.base_url}/chat/completions", json={**BODY, "stream": True}, timeout=10
        )
    assert resp.status_code == 200
    assert _leaks(resp) == []
    assert "never sent" not in resp.text
    assert "upstream_stream_error" in resp.text
    assert resp.text.rstrip().endswith("data: [DONE]")


@pytest.mark.parametrize("stream", [False, True])
def test_relayed_headers_are_scrubbed(proxy_factory: ProxyFactory, stream: bool) -> None:
    headers = [
        ("x-ratelimit-remaining-requests", f"key={KEY}"),
        ("retry-after", f"Bearer {KEY}"),
    ]
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(b'{"error": {"message": "slow down"}}', status=429, headers=headers)
        proxy = proxy_factory(proxy_config(base_url, KEY))
        resp = httpx.post(
            f"{proxy.base_url}/chat/completions", json={**BODY, "stream": stream}, timeout=10
        )
    assert resp.status_code == 429
    assert "x-ratelimit-remaining-requests" in resp.headers
    assert _leaks(resp) == []


def test_success_headers_and_body_are_scrubbed(proxy_factory: ProxyFactory) -> None:
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(
            completion(f"your key is {KEY}"), headers=[("x-ratelimit-limit-tokens", KEY)]
        )
        proxy = proxy_factory(proxy_config(base_url, KEY))
        resp = httpx.post(f"{proxy.base_url}/chat/completions", json=BODY, timeout=10)
    assert resp.status_code == 200
    assert resp.json()["choices"][0]["message"]["content"] == "your key is [redacted]"
    assert _leaks(resp) == []


def test_stream_content_is_scrubbed(proxy_factory: ProxyFactory) -> None:
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(sse(chunk(f"key: {KEY}"), chunk(finish="stop"), b"data: [DONE]\n\n"))
        proxy = proxy_factory(proxy_config(base_url, KEY))
        resp = httpx.post(
            f"{proxy.base_url}/chat/completions", json={**BODY, "stream": True}, timeout=10
        )
    assert resp.status_code == 200
    assert "key: [redacted]" in resp.text
    assert _leaks(resp) == []


@pytest.mark.parametrize("stream", [False, True])
def test_non_json_error_body_is_scrubbed_before_it_is_cut(
    proxy_factory: ProxyFactory, stream: bool
) -> None:
    # The key starts just before the old 500-character cut: cutting first left "key=UPSTR".
    body = ("x" * 491 + f" key={KEY} and more").encode()
    with hostile_upstream() as (upstream, base_url):
        upstream.answer(body, status=401, content_type="text/plain")
        proxy = proxy_factory(proxy_config(base_url, KEY))
        resp = httpx.post(
            f"{proxy.base_url}/chat/completions", json={**BODY, "stream": stream}, timeout=10
        )
    assert resp.status_code == 401
    assert "key=[redacted]" in resp.json()["error"]["message"]
    assert _leaks(resp) == []
