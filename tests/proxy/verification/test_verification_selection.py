"""Which policy a request gets and who may skip verification, through the real proxy, the
emulator and the openai SDK: a key created with ``keys create --policy`` is bound to that
policy, and ``verify: false`` is honoured only where the policy allows it, and audited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from proxy.cli import main
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory, sdk_client
from tests.proxy.ibuprofen import DOCUMENTS, QUESTION, SUPPORTED, WRONG_DOSE

SKIPPED = "skipped at the client's request"


def _create_key(store: Path, capsys: pytest.CaptureFixture[str], *policies: str) -> str:
    argv = ["keys", "--store", str(store), "create", "--tenant", "acme"]
    for policy in policies:
        argv += ["--policy", policy]
    assert main(argv) == 0
    return capsys.readouterr().out.strip()


@pytest.fixture
def audit_path(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


def _audit(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


@pytest.fixture
def keyed(
    proxy_factory: ProxyFactory, tmp_path: Path, audit_path: Path
) -> Iterator[tuple[RunningProxy, Path]]:
    store = tmp_path / "keys.json"
    proxy = proxy_factory(
        {
            "auth": {"store": str(store)},
            "verification": {"enabled": True},
            "audit": {"jsonl": str(audit_path)},
        }
    )
    yield proxy, store


def _client(proxy: RunningProxy, key: str) -> openai.OpenAI:
    return sdk_client(proxy.base_url, key)


def test_key_bound_to_a_policy_gets_it_without_asking(
    keyed: tuple[RunningProxy, Path],
    emulator: RunningEmulator,
    capsys: pytest.CaptureFixture[str],
) -> None:
    proxy, store = keyed
    key = _create_key(store, capsys, "clinical-strict")
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE}"
    with _client(proxy, key) as client:
        completion = client.chat.completions.create(
            model="gpt-x", messages=QUESTION, extra_body={"veriproxy": {"documents": DOCUMENTS}}
        )
    report = (completion.model_extra or {})["verification"]
    assert report["policy"] == "clinical-strict"  # was "default": the key's policy was ignored
    assert report["status"] == "blocked"
    assert "200 mg" not in (completion.choices[0].message.content or "")


@pytest.mark.parametrize("how", ["body", "header"])
def test_bound_key_cannot_opt_out_of_its_policy(
    keyed: tuple[RunningProxy, Path],
    emulator: RunningEmulator,
    audit_path: Path,
    capsys: pytest.CaptureFixture[str],
    how: str,
) -> None:
    proxy, store = keyed
    key = _create_key(store, capsys, "clinical-strict")
    emulator.emulator.reply = WRONG_DOSE
    body = {"extra_body": {"veriproxy": {"verify": False}}}
    if how == "header":
        body = {"extra_headers": {"X-Veriproxy-Verify": "false"}}
    with _client(proxy, key) as client, pytest.raises(openai.PermissionDeniedError) as caught:
        client.chat.completions.create(model="gpt-x", messages=QUESTION, **body)  # type: ignore[arg-type]
    assert caught.value.body["param"] == "veriproxy.verify"  # type: ignore[index]
    assert "clinical-strict" in caught.value.message
    assert emulator.stats.requests == []  # refused before the upstream was called


@pytest.mark.parametrize("stream", [False, True])
def test_opt_out_the_policy_allows_is_still_audited(
    proxy_factory: ProxyFactory, emulator: RunningEmulator, audit_path: Path, stream: bool
) -> None:
    proxy = proxy_factory({"verification": {"enabled": True}, "audit": {"jsonl": str(audit_path)}})
    emulator.emulator.reply = WRONG_DOSE
    body = {
        "model": "gpt-x",
        "messages": QUESTION,
        "stream": stream,
        "veriproxy": {"verify": False},
    }
    response = httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=60)
    assert response.status_code == 200
    assert "verification" not in response.text  # passthrough: no report, no annotations
    if not stream:
        assert response.headers["x-veriproxy-status"] == "unverified"
    [record] = _audit(audit_path)
    assert record["status"] == "unverified" and record["policy"] == "default"
    assert SKIPPED in record["error"]
    assert record["sentences"] == []


def test_configured_default_policy_is_what_a_request_gets(
    proxy_factory: ProxyFactory, emulator: RunningEmulator
) -> None:
    """``verification.default_policy`` applies to a request that nothing else selects (the
    shipped ``default`` preset used to match every tenant and shadow it)."""
    emulator.emulator.reply = f"{SUPPORTED} {WRONG_DOSE}"
    proxy = proxy_factory({"verification": {"enabled": True, "default_policy": "clinical-strict"}})
    with _client(proxy, "sk-any") as client:
        completion = client.chat.completions.create(
            model="gpt-x", messages=QUESTION, extra_body={"veriproxy": {"documents": DOCUMENTS}}
        )
    report = (completion.model_extra or {})["verification"]
    assert report["policy"] == "clinical-strict"
    assert report["status"] == "blocked"
    assert "200 mg" not in (completion.choices[0].message.content or "")
