"""The OpenAI routes the proxy does not verify, relayed through the real proxy to the emulator
with the real openai SDK: embeddings, files (multipart), models, unknown routes; key mapping,
scrubbing, limits, tenant scoping and metrics."""

from __future__ import annotations

import asyncio
import base64
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import openai
import pytest

from proxy.auth import FileKeyStore, new_key
from proxy.passthrough import _Relay
from proxy.scrub import Scrubber
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory, sdk_client

UPSTREAM_KEY = "sk-upstream-passthrough-0123456789SECRET"


def client(proxy: RunningProxy, key: str = "sk-client") -> openai.OpenAI:
    return sdk_client(proxy.base_url, key)


def with_key(emulator: RunningEmulator, **extra: object) -> dict[str, object]:
    return {"default_upstream": {"base_url": emulator.base_url, "api_key": UPSTREAM_KEY}, **extra}


def test_embeddings_match_the_upstreams_and_use_the_configured_key(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory(with_key(emulator))
    via_proxy = client(proxy).embeddings.create(model="text-embed", input=["aspirin", "fever"])
    direct = sdk_client(emulator.base_url, "x").embeddings.create(
        model="text-embed", input=["aspirin", "fever"]
    )
    assert [d.embedding for d in via_proxy.data] == [d.embedding for d in direct.data]
    assert len(via_proxy.data[0].embedding) == 8
    sent = emulator.stats.requests[0]
    assert sent["encoding_format"] == "base64"  # the SDK's own request shape went through as is
    assert emulator.stats.headers[0]["authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_embeddings_float_format_and_model_alias(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory({"models": {"embed": {"base_url": emulator.base_url, "model": "real"}}})
    body = {"model": "embed", "input": "x", "encoding_format": "float", "dimensions": 4}
    response = httpx.post(f"{proxy.base_url}/embeddings", json=body)
    assert response.status_code == 200, response.text
    assert len(response.json()["data"][0]["embedding"]) == 4
    assert emulator.stats.requests[-1]["model"] == "real"


def test_multipart_upload_streams_past_the_json_body_limit(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    """``max_body_bytes`` bounds JSON bodies; an upload streams through under its own limit."""
    proxy = proxy_factory({"max_body_bytes": 1024})
    content = bytes(range(256)) * 4096  # 1 MiB, every byte value
    sdk = client(proxy)
    uploaded = sdk.files.create(file=("notes.jsonl", content), purpose="batch")
    assert (uploaded.bytes, uploaded.filename, uploaded.purpose) == (
        len(content),
        "notes.jsonl",
        "batch",
    )
    assert emulator.stats.requests[-1]["upload_bytes"] > len(content)  # the multipart body, whole
    assert sdk.files.content(uploaded.id).read() == content
    assert [f.id for f in sdk.files.list()] == [uploaded.id]
    assert sdk.files.retrieve(uploaded.id).bytes == len(content)


def test_upload_over_its_limit_is_refused(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory({"limits": {"max_upload_bytes": 1000}})
    with pytest.raises(openai.APIStatusError) as caught:
        client(proxy).files.create(file=("big.bin", b"x" * 5000), purpose="batch")
    assert caught.value.status_code == 413
    assert emulator.stats.requests == []


def test_upstream_error_is_its_own_and_scrubbed(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory(with_key(emulator))
    with pytest.raises(openai.AuthenticationError) as caught:
        client(proxy).embeddings.create(model="emu-error-401", input="x")
    assert caught.value.code == "emulated_401"
    assert UPSTREAM_KEY not in caught.value.response.text
    assert "[redacted]" in caught.value.response.text


def test_route_the_upstream_lacks_returns_its_404(proxy: RunningProxy) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client(proxy).audio.speech.create(model="tts-1", voice="alloy", input="hi")
    assert "upstream returned HTTP 404" in caught.value.message


def test_retryable_failure_is_retried_for_json_bodies(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory({"retry": {"backoff_seconds": 0}})
    result = client(proxy).embeddings.create(
        model="emu-error-503,first-1", input="x", encoding_format="float"
    )
    assert len(result.data) == 1
    assert len(emulator.stats.requests) == 2


def test_models_by_id(proxy_factory: ProxyFactory, emulator: RunningEmulator) -> None:
    proxy = proxy_factory({"models": {"fast": {"base_url": emulator.base_url}}})
    assert client(proxy).models.retrieve("fast").owned_by == "veriproxy"
    with pytest.raises(openai.NotFoundError):  # the emulator serves no /models/{id}
        client(proxy).models.retrieve("gpt-unknown")


def test_metrics_say_unverified_by_bounded_route(proxy: RunningProxy) -> None:
    sdk = client(proxy)
    uploaded = sdk.files.create(file=("a.txt", b"abc"), purpose="batch")
    sdk.files.retrieve(uploaded.id)
    sdk.embeddings.create(model="m", input="x")
    text = httpx.get(f"{proxy.url}/metrics").text
    assert uploaded.id not in text
    series = 'veriproxy_unverified_requests_total{{reason="passthrough",route="{}"}} 1.0'
    for route in ("/v1/files/{rest:path}", "/v1/files", "/v1/embeddings"):
        assert series.format(route) in text


def test_rate_limits_cover_passthrough_routes(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    proxy = proxy_factory({"rate_limits": {"default": {"requests": 1}}})
    client(proxy).embeddings.create(model="m", input="x")
    with pytest.raises(openai.RateLimitError):
        client(proxy).embeddings.create(model="m", input="x")
    assert len(emulator.stats.requests) == 1


def test_shared_upstream_key_keeps_tenants_out_of_stateful_routes(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    key, record = new_key("acme")
    asyncio.run(FileKeyStore(store).put(record))
    proxy = proxy_factory(with_key(emulator, auth={"store": str(store)}))
    sdk = client(proxy, key)
    assert sdk.embeddings.create(model="m", input="x").data  # stateless: relayed
    with pytest.raises(openai.PermissionDeniedError):
        sdk.files.list()
    with pytest.raises(openai.PermissionDeniedError):
        sdk.batches.list()
    assert len(emulator.stats.requests) == 1


# -- the body relay: keys scrubbed across chunk boundaries -----------------------------------


async def _relayed(chunks: list[bytes], secrets: tuple[str, ...]) -> bytes:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    relay = _Relay(httpx.Response(200, content=body()), Scrubber(secrets), lambda exc: None)
    out = [part async for part in relay]
    await relay.aclose()
    return b"".join(out)


@pytest.mark.parametrize("cut", [1, 5, len(UPSTREAM_KEY) - 1])
async def test_relay_scrubs_a_key_split_across_chunks(cut: int) -> None:
    text = f"before {UPSTREAM_KEY} after".encode()
    at = len(b"before ") + cut
    out = await _relayed([text[:at], text[at:]], (UPSTREAM_KEY,))
    assert out == b"before [redacted] after"


async def test_relay_keeps_bytes_that_only_look_like_a_key_start() -> None:
    chunks = [b"data sk-up", b"date and more"]
    assert await _relayed(chunks, (UPSTREAM_KEY,)) == b"data sk-update and more"


def test_embedding_vectors_survive_base64(proxy: RunningProxy) -> None:
    """The raw base64 the SDK decodes is the emulator's, byte for byte."""
    body = {"model": "m", "input": "x", "encoding_format": "base64", "dimensions": 3}
    raw = httpx.post(f"{proxy.base_url}/embeddings", json=body).json()["data"][0]["embedding"]
    assert len(struct.unpack("<3f", base64.b64decode(raw))) == 3
