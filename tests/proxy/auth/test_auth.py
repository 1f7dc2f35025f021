"""Proxy keys, both key stores and the auth middleware, through a real ASGI app."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from proxy.auth import (
    LOCAL_PRINCIPAL,
    AuthMiddleware,
    FileKeyStore,
    KeyRecord,
    KeyStore,
    KeyStoreError,
    PermissionDenied,
    Principal,
    RedisKeyStore,
    UnknownKey,
    new_key,
    parse_key,
    require_model,
    require_policy,
    require_role,
)
from proxy.errors import sanitise

REDIS_URL = "redis://127.0.0.1:6379/0"


# --- keys ----------------------------------------------------------------------------------


def test_new_key_round_trips_and_stores_only_a_digest() -> None:
    key, record = new_key("acme", ("gpt-4o",), ("strict",))
    parsed = parse_key(key)
    assert parsed is not None and parsed[0] == record.key_id
    assert parsed[1] not in json.dumps(record.to_dict())
    assert KeyRecord.from_dict(record.to_dict()) == record


def test_roles_are_stored_with_the_key_and_default_to_none() -> None:
    _, reviewer = new_key("acme", roles=("reviewer",))
    assert KeyRecord.from_dict(reviewer.to_dict()).roles == ("reviewer",)
    assert Principal.of(reviewer).has_role("reviewer")
    _, plain = new_key("acme")
    old = {k: v for k, v in plain.to_dict().items() if k != "roles"}  # stored before roles
    assert KeyRecord.from_dict(old).roles == ()
    assert not Principal.of(plain).has_role("reviewer")
    with pytest.raises(PermissionDenied):
        require_role(Principal.of(plain), "reviewer")
    with pytest.raises(PermissionDenied):
        require_role(LOCAL_PRINCIPAL, "reviewer")  # keyless: nobody is a reviewer
    with pytest.raises(ValueError):
        new_key("acme", roles=("admin",))
    with pytest.raises(ValueError):
        KeyRecord.from_dict({**plain.to_dict(), "roles": ["admin"]})


def test_keys_are_scrubbed_by_the_log_sanitiser() -> None:
    key, _ = new_key("acme")
    assert key not in sanitise(f"client sent {key} in a body")


@pytest.mark.parametrize(
    "bad", ["", "sk-vp-", "sk-vp-zzzzzzzzzzzz-" + "0" * 48, "sk-vp-" + "a" * 12 + "-" + "0" * 47]
)
def test_malformed_keys_do_not_parse(bad: str) -> None:
    assert parse_key(bad) is None


def test_empty_tenant_is_refused() -> None:
    with pytest.raises(ValueError):
        new_key("  ")


def test_principal_allow_lists() -> None:
    anyone = Principal("t", "k")
    assert anyone.may_use_model("x") and anyone.may_use_policy("y")
    narrow = Principal("t", "k", ("a",), ("p",))
    require_model(narrow, "a")
    require_policy(narrow, "p")
    with pytest.raises(PermissionDenied):
        require_model(narrow, "b")
    with pytest.raises(PermissionDenied):
        require_policy(narrow, "q")


# --- stores --------------------------------------------------------------------------------


@pytest.fixture(params=["file", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KeyStore]:
    if request.param == "file":
        yield FileKeyStore(tmp_path / "keys.json")
        return
    prefix = f"veriproxy-test-{uuid.uuid4().hex}:"
    redis_store = RedisKeyStore(REDIS_URL, prefix=prefix)
    yield redis_store
    await redis_store.aclose()
    client = aioredis.Redis.from_url(REDIS_URL)
    await client.delete(f"{prefix}keys")
    await client.aclose()


async def test_store_put_get_list_revoke(store: KeyStore) -> None:
    _, first = new_key("acme")
    _, second = new_key("globex", ("m",))
    await store.put(first)
    await store.put(second)
    assert await store.get(first.key_id) == first
    assert await store.get("0" * 12) is None
    assert [r.key_id for r in await store.list()] == [first.key_id, second.key_id]
    revoked = await store.revoke(first.key_id)
    assert revoked.revoked
    got = await store.get(first.key_id)
    assert got is not None and got.revoked
    assert (await store.revoke(first.key_id)).revoked_at == revoked.revoked_at
    with pytest.raises(UnknownKey):
        await store.revoke("0" * 12)


async def test_file_store_is_private_and_sees_outside_changes(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    writer, reader = FileKeyStore(path), FileKeyStore(path)
    _, record = new_key("acme")
    await writer.put(record)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert await reader.get(record.key_id) == record
    await writer.revoke(record.key_id)
    got = await reader.get(record.key_id)
    assert got is not None and got.revoked
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".keys-")] == []


@pytest.mark.parametrize(
    "content", ["{not json", "[]", '{"version": 9, "keys": []}', '{"version": 1, "keys": [{}]}']
)
async def test_corrupt_key_file_raises_store_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "keys.json"
    path.write_text(content)
    with pytest.raises(KeyStoreError):
        await FileKeyStore(path).get("0" * 12)


async def test_unreachable_redis_raises_store_error() -> None:
    store = RedisKeyStore("redis://127.0.0.1:1/0", timeout=0.5)
    with pytest.raises(KeyStoreError):
        await store.get("0" * 12)
    await store.aclose()


# --- middleware ----------------------------------------------------------------------------


async def _echo(request: Request) -> JSONResponse:
    principal = request.state.principal
    return JSONResponse(
        {
            "tenant": principal.tenant,
            "key_id": principal.key_id,
            "models": list(principal.allowed_models),
            "authorization": request.headers.get("authorization"),
        }
    )


async def _health(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def _client(store: KeyStore | None) -> httpx.AsyncClient:
    app = Starlette(
        routes=[Route("/v1/echo", _echo, methods=["GET", "POST"]), Route("/healthz", _health)]
    )
    wrapped = AuthMiddleware(app, store)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=wrapped), base_url="http://t")


async def test_valid_key_yields_principal_and_is_not_passed_on(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys.json")
    key, record = new_key("acme", ("gpt-4o",))
    await store.put(record)
    async with _client(store) as client:
        resp = await client.post("/v1/echo", headers={"Authorization": f"Bearer {key}"})
    assert resp.status_code == 200
    assert resp.json() == {
        "tenant": "acme",
        "key_id": record.key_id,
        "models": ["gpt-4o"],
        "authorization": None,
    }


async def test_rejections_use_openai_envelope(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path / "keys.json")
    key, record = new_key("acme")
    await store.put(record)
    wrong_secret = key[:-4] + ("0000" if not key.endswith("0000") else "1111")
    unknown, _ = new_key("acme")
    async with _client(store) as client:
        cases = {
            "missing": await client.get("/v1/echo"),
            "not bearer": await client.get("/v1/echo", headers={"Authorization": f"Basic {key}"}),
            "malformed": await client.get("/v1/echo", headers={"Authorization": "Bearer sk-x"}),
            "wrong": await client.get(
                "/v1/echo", headers={"Authorization": f"Bearer {wrong_secret}"}
            ),
            "unknown": await client.get("/v1/echo", headers={"Authorization": f"Bearer {unknown}"}),
        }
        await store.revoke(record.key_id)
        cases["revoked"] = await client.get("/v1/echo", headers={"Authorization": f"Bearer {key}"})
    for name, resp in cases.items():
        assert resp.status_code == 401, name
        assert resp.headers["www-authenticate"] == "Bearer"
        error = resp.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}
        assert error["code"] == "invalid_api_key"
        assert key not in resp.text and unknown not in resp.text
    assert "revoked" in cases["revoked"].json()["error"]["message"]


async def test_store_failure_is_503_never_a_pass(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text("{broken")
    key, _ = new_key("acme")
    async with _client(FileKeyStore(path)) as client:
        resp = await client.get("/v1/echo", headers={"Authorization": f"Bearer {key}"})
    assert resp.status_code == 503
    assert resp.json()["error"]["code"] == "key_store_unavailable"


async def test_public_paths_and_local_mode(tmp_path: Path) -> None:
    async with _client(FileKeyStore(tmp_path / "keys.json")) as client:
        assert (await client.get("/healthz")).status_code == 200
    async with _client(None) as client:
        resp = await client.get("/v1/echo", headers={"Authorization": "Bearer sk-upstream-123"})
    assert resp.json()["tenant"] == LOCAL_PRINCIPAL.tenant
    # Local mode forwards the client's own header, as a plain proxy would.
    assert resp.json()["authorization"] == "Bearer sk-upstream-123"
