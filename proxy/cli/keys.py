"""``veriproxy keys create|list|revoke``: manage proxy keys in a file or Redis key store.

The store is ``--store`` (a JSON file path or a ``redis://`` URL), else ``auth.store`` from the
configuration (``--config``/``VERIPROXY_CONFIG``/``VERIPROXY_AUTH__STORE``). A created key is
printed once, on stdout, and never again: only its SHA-256 digest is kept.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable

from proxy.auth import ROLES, KeyRecord, KeyStore, KeyStoreError, UnknownKey, new_key, open_store
from proxy.cli._parser import CliError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("keys", help="create, list and revoke proxy keys")
    parser.add_argument("--store", help="key file path or redis:// URL (default: auth.store)")
    parser.add_argument("--config", help="configuration file that names auth.store")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    create = actions.add_parser("create", help="create a key and print it once")
    create.add_argument("--tenant", required=True, help="tenant the key belongs to")
    create.add_argument(
        "--model", action="append", default=[], help="allowed model (repeat; default: any)"
    )
    create.add_argument(
        "--policy",
        action="append",
        default=[],
        help="the key's policy: always applied to its requests (repeat to let it choose among "
        "several; the first is used when a request names none; default: any, chosen by match)",
    )
    create.add_argument(
        "--role",
        action="append",
        default=[],
        choices=ROLES,
        help="extra right (repeat): 'reviewer' may read the words a policy withheld from its "
        "tenant's answers, from the audit log (default: none)",
    )
    create.set_defaults(func=lambda a: _run(a, _create))

    listing = actions.add_parser("list", help="list keys (never their secrets)")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(func=lambda a: _run(a, _list))

    revoke = actions.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id", help="the key id (the 12 hex characters after 'sk-vp-')")
    revoke.set_defaults(func=lambda a: _run(a, _revoke))


def _run(
    args: argparse.Namespace, action: Callable[[KeyStore, argparse.Namespace], Awaitable[int]]
) -> int:
    url = args.store or _configured_store(args.config)
    if not url:
        raise CliError("no key store: pass --store or set auth.store in the config")

    async def go() -> int:
        store = open_store(url)
        try:
            return await action(store, args)
        finally:
            await store.aclose()

    try:
        return asyncio.run(go())
    except KeyStoreError as exc:
        raise CliError(str(exc)) from None


def _configured_store(config: str | None) -> str | None:
    from proxy.config import ConfigError, load_settings

    try:
        return load_settings(config).auth.store
    except ConfigError as exc:
        raise CliError(str(exc)) from None


async def _create(store: KeyStore, args: argparse.Namespace) -> int:
    try:
        key, record = new_key(
            args.tenant, tuple(args.model), tuple(args.policy), roles=tuple(args.role)
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    await store.put(record)
    print(key)
    print(
        f"created key {record.key_id} for tenant {record.tenant!r}; "
        "store it now, it cannot be shown again",
        file=sys.stderr,
    )
    return 0


async def _list(store: KeyStore, args: argparse.Namespace) -> int:
    records = await store.list()
    for record in records:
        if args.json:
            public = {k: v for k, v in record.to_dict().items() if k != "secret_sha256"}
            print(json.dumps(public))
        else:
            print(_row(record))
    return 0


def _row(record: KeyRecord) -> str:
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created_at))
    status = "revoked" if record.revoked else "active"
    models = ",".join(record.allowed_models) or "*"
    policies = ",".join(record.allowed_policies) or "*"
    return "  ".join(
        (
            record.key_id,
            f"{status:7}",
            record.tenant,
            f"models={models}",
            f"policies={policies}",
            f"roles={','.join(record.roles) or '-'}",
            created,
        )
    )


async def _revoke(store: KeyStore, args: argparse.Namespace) -> int:
    try:
        record = await store.revoke(args.key_id)
    except UnknownKey:
        raise CliError(f"no key with id {args.key_id}") from None
    print(f"revoked key {record.key_id} (tenant {record.tenant!r})", file=sys.stderr)
    return 0
