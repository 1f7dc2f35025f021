"""``veriproxy audit verify FILE`` or ``veriproxy audit verify --redis URL [--stream NAME]``:
check the audit log's hash chain; exit status 0 when intact, 1 when broken."""

from __future__ import annotations

import argparse
import asyncio
import sys


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("audit", help="inspect the tamper-evident audit log")
    actions = parser.add_subparsers(
        dest="audit_command", required=True, metavar="ACTION", help="what to do with the log"
    )
    verify = actions.add_parser("verify", help="check that the audit hash chain is intact")
    verify.add_argument("file", nargs="?", help="JSONL audit file")
    verify.add_argument("--redis", metavar="URL", help="verify a Redis Stream instead")
    verify.add_argument("--stream", default=None, help="stream name (default: veriproxy:audit)")
    verify.set_defaults(func=_verify, parser=verify)


def _verify(args: argparse.Namespace) -> int:
    from proxy.audit import DEFAULT_STREAM, verify_file, verify_redis

    if (args.file is None) == (args.redis is None):
        args.parser.error("give either FILE or --redis URL")
    if args.file is not None:
        try:
            report = verify_file(args.file)
        except OSError as exc:
            print(f"cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
        source = args.file
    else:
        stream = args.stream or DEFAULT_STREAM
        report = asyncio.run(verify_redis(args.redis, stream))
        source = f"stream {stream}"
    print(f"{source}: {report.describe()}")
    return 0 if report.ok else 1
