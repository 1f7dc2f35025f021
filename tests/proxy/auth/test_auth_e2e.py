"""Proxy keys through the real proxy and emulator: who gets in, what travels upstream, what
may be used, where the proxy may listen, and that no key ever shows up in logs, errors or
metrics."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.auth import FileKeyStore, exposure_problem, is_loopback, new_key
from proxy.cli import serve
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory

UPSTREAM_KEY = "sk-upstream-0123456789abcdefSECRET"


def _chat(model: str = "gpt-test", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}


def _post(proxy: RunningProxy, key: str | None, body: dict[str, Any]) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{proxy.base_url}/chat/completions", json=body, headers=headers, timeout=10)


def _store_with(path: Path, **kwargs: Any) -> str:
    key, record = new_key("acme", **kwargs)
    asyncio.run(FileKeyStore(path).put(record))
    return key


def test_key_admits_and_never_travels_upstream(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    key = _store_with(store)
    proxy = proxy_factory(
        {
            "auth": {"store": str(store)},
            "default_upstream": {"base_url": emulator.base_url, "api_key": UPSTREAM_KEY},
        }
    )
    assert _post(proxy, None, _chat()).status_code == 401
    resp = _post(proxy, key, _chat())
    assert resp.status_code == 200, resp.text
    assert emulator.stats.headers[-1]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert all(key not in str(h) for h in emulator.stats.headers)


def test_keyless_upstream_gets_no_authorization(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    key = _store_with(store)
    proxy = proxy_factory({"auth": {"store": str(store)}})
    assert _post(proxy, key, _chat()).status_code == 200
    assert "authorization" not in emulator.stats.headers[-1]


def test_local_mode_forwards_client_header(proxy: RunningProxy, emulator: RunningEmulator) -> None:
    assert _post(proxy, "sk-client-own-key-12345678", _chat()).status_code == 200
    assert emulator.stats.headers[-1]["authorization"] == "Bearer sk-client-own-key-12345678"


def test_models_and_policies_outside_the_key_are_403(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    key = _store_with(store, allowed_models=("gpt-test",), allowed_policies=("default",))
    proxy = proxy_factory({"auth": {"store": str(store)}})
    assert _post(proxy, key, _chat()).status_code == 200
    denied = {
        "model": _post(proxy, key, _chat("gpt-other")),
        "policy": _post(proxy, key, _chat(veriproxy={"policy": "lenient"})),
    }
    for param, resp in denied.items():
        assert resp.status_code == 403
        error = resp.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}
        assert error["param"] == param and error["code"] == "permission_denied"
    assert len(emulator.stats.requests) == 1


def test_model_list_shows_only_allowed_models(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    narrow = _store_with(store, allowed_models=("gpt-a",))
    wide = _store_with(store)
    upstream = {"base_url": emulator.base_url}
    proxy = proxy_factory(
        {"auth": {"store": str(store)}, "models": {"gpt-a": upstream, "gpt-b": upstream}}
    )

    def listed(key: str) -> list[str]:
        resp = httpx.get(
            f"{proxy.base_url}/models", headers={"authorization": f"Bearer {key}"}, timeout=10
        )
        return sorted(m["id"] for m in resp.json()["data"])

    assert listed(narrow) == ["gpt-a"]
    # The default upstream's own models too: a key without a model list may use them.
    assert listed(wide) == ["emulator", "gpt-a", "gpt-b"]


def test_no_key_in_logs_errors_or_metrics(
    proxy_factory: ProxyFactory,
    emulator: RunningEmulator,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = tmp_path / "keys.json"
    key = _store_with(store)
    revoked, record = new_key("acme")
    asyncio.run(FileKeyStore(store).put(record.revoke()))
    proxy = proxy_factory(
        {
            "log_level": "debug",
            "auth": {"store": str(store)},
            "default_upstream": {"base_url": emulator.base_url, "api_key": UPSTREAM_KEY},
            "retry": {"max_attempts": 1},
        }
    )
    caplog.set_level(logging.DEBUG)
    bodies = [
        # The emulator echoes the upstream key in its 401 message, as some providers do.
        _post(proxy, key, _chat("emu-error-401")),
        _post(proxy, key, _chat("emu-error-500")),
        _post(proxy, key, _chat("emu-malformed", stream=True)),
        _post(proxy, revoked, _chat()),
        _post(proxy, key[:-2] + "00", _chat()),
        _post(proxy, f"{key} trailing", _chat()),
        httpx.post(f"{proxy.base_url}/chat/completions", content=key.encode(), timeout=10),
    ]
    assert bodies[0].status_code == 401 and "[redacted]" in bodies[0].text
    metrics = httpx.get(f"{proxy.url}/metrics", timeout=10).text
    everything = "\n".join([caplog.text, metrics, *(r.text for r in bodies)])
    everything += "\n".join(str(r.headers) for r in bodies)
    assert UPSTREAM_KEY not in everything
    assert key not in everything and revoked not in everything
    assert key.split("-")[-1] not in everything


def test_exposure_rules() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.0.0.5")
    assert exposure_problem("0.0.0.0", keys_enabled=False, allow_unauthenticated=False)
    assert exposure_problem("0.0.0.0", keys_enabled=True, allow_unauthenticated=False) is None
    assert exposure_problem("0.0.0.0", keys_enabled=False, allow_unauthenticated=True) is None
    assert exposure_problem("127.0.0.1", keys_enabled=False, allow_unauthenticated=False) is None


def test_serve_refuses_public_bind_without_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("VERIPROXY_CONFIG", raising=False)
    monkeypatch.delenv("VERIPROXY_AUTH__STORE", raising=False)
    monkeypatch.delenv("VERIPROXY_AUTH__ALLOW_UNAUTHENTICATED", raising=False)
    args = argparse.Namespace(config=None, host="0.0.0.0", port=0)
    assert serve.run(args) == 2
    assert "refusing to listen on 0.0.0.0" in capsys.readouterr().err
