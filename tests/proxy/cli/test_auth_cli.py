"""``veriproxy keys``: create prints the key once, list never shows secrets, revoke sticks."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import pytest

from proxy.auth import FileKeyStore, parse_key
from proxy.cli import CliError, keys


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    keys.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["keys", *argv])
    return int(args.func(args))


def test_create_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "keys.json")
    assert _run("--store", store, "create", "--tenant", "acme", "--model", "gpt-4o") == 0
    key = capsys.readouterr().out.strip()
    parsed = parse_key(key)
    assert parsed is not None
    key_id, secret = parsed

    assert _run("--store", store, "list", "--json") == 0
    out = capsys.readouterr().out
    listed = [json.loads(line) for line in out.splitlines()]
    assert [(r["key_id"], r["tenant"], r["allowed_models"]) for r in listed] == [
        (key_id, "acme", ["gpt-4o"])
    ]
    assert secret not in out and "secret_sha256" not in out
    assert secret not in (tmp_path / "keys.json").read_text()

    assert _run("--store", store, "revoke", key_id) == 0
    record = asyncio.run(FileKeyStore(store).get(key_id))
    assert record is not None and record.revoked
    assert _run("--store", store, "list") == 0
    assert "revoked" in capsys.readouterr().out


def test_create_a_reviewer_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "keys.json")
    assert _run("--store", store, "create", "--tenant", "acme", "--role", "reviewer") == 0
    parsed = parse_key(capsys.readouterr().out.strip())
    assert parsed is not None
    record = asyncio.run(FileKeyStore(store).get(parsed[0]))
    assert record is not None and record.roles == ("reviewer",)
    assert _run("--store", store, "list") == 0
    assert "roles=reviewer" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # argparse refuses a role it does not know
        _run("--store", store, "create", "--tenant", "acme", "--role", "admin")


def test_revoke_unknown_and_bad_store(tmp_path: Path) -> None:
    # CliError: main() prints it as one line and exits 2 (tests/proxy/cli/test_cli_exit_codes.py)
    with pytest.raises(CliError, match="no key with id"):
        _run("--store", str(tmp_path / "keys.json"), "revoke", "0" * 12)
    (tmp_path / "bad.json").write_text("nope")
    with pytest.raises(CliError, match="unreadable"):
        _run("--store", str(tmp_path / "bad.json"), "list")


def test_store_from_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("VERIPROXY_CONFIG", raising=False)
    monkeypatch.delenv("VERIPROXY_AUTH__STORE", raising=False)
    with pytest.raises(CliError, match="no key store"):
        _run("list")
    monkeypatch.setenv("VERIPROXY_AUTH__STORE", str(tmp_path / "env-keys.json"))
    assert _run("create", "--tenant", "acme") == 0
    assert (tmp_path / "env-keys.json").exists()
