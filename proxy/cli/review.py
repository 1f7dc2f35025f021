"""``veriproxy review report|export|verify``: what reviewers' labels say about the verifier on
live traffic, and whether the store's labels are still those the audit log chained. The store
is ``--store`` (a SQLAlchemy URL), else ``review.store`` from the configuration
(``--config``/``VERIPROXY_CONFIG``/``VERIPROXY_REVIEW__STORE``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from proxy.cli._parser import CliError

if TYPE_CHECKING:
    from proxy.audit import ChainReport
    from proxy.review.estimate import Estimate
    from proxy.review.items import Labelled
    from proxy.review.report import Report, Section


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("review", help="precision measured by reviewers; labelled data")
    parser.add_argument("--store", help="review store URL (default: review.store)")
    parser.add_argument("--config", help="configuration file that names review.store")
    actions = parser.add_subparsers(dest="review_command", required=True, metavar="ACTION")
    report = actions.add_parser(
        "report", help="precision and recall per verdict with 95%% intervals, confusion matrix"
    )
    report.add_argument("--by", choices=("model", "tenant"), help="also per model or tenant")
    report.add_argument("--json", action="store_true", help="machine-readable output")
    report.set_defaults(func=_report, parser=report)
    export = actions.add_parser("export", help="labelled (evidence span, sentence, verdict) rows")
    export.add_argument("--out", type=Path, required=True, help="JSONL file to write")
    export.set_defaults(func=_export, parser=export)
    verify = actions.add_parser(
        "verify", help="check the store's labels against the audit log's label events"
    )
    log = verify.add_mutually_exclusive_group(required=True)
    log.add_argument("--audit", type=Path, help="JSONL audit file")
    log.add_argument("--redis", metavar="URL", help="the audit log's Redis Stream instead")
    verify.add_argument("--stream", default=None, help="stream name (default: veriproxy:audit)")
    verify.set_defaults(func=_verify, parser=verify)


def _labelled(args: argparse.Namespace) -> list[Labelled]:
    from sqlalchemy.exc import SQLAlchemyError

    from proxy.config import ConfigError, load_settings
    from proxy.review.store import open_store

    url = args.store
    if url is None:
        try:
            url = load_settings(args.config).review.store
        except ConfigError as exc:
            raise CliError(str(exc)) from None
    try:
        store = open_store(url)
        try:
            return store.labelled()
        finally:
            store.close()
    except (SQLAlchemyError, ValueError) as exc:
        raise CliError(f"cannot read the review store: {type(exc).__name__}") from None


def _report(args: argparse.Namespace) -> int:
    from proxy.review.report import build_report

    report = build_report(_labelled(args), args.by)
    if args.json:
        json.dump(_as_json(report), sys.stdout, indent=2)
        print()
    else:
        _print(report, sys.stdout)
    return 0


def _export(args: argparse.Namespace) -> int:
    from proxy.review.report import export_rows

    rows = export_rows(_labelled(args))
    with args.out.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} labelled items written to {args.out}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Exit 0 when the audit chain is intact and every label matches its event, else 1."""
    from proxy.audit import DEFAULT_STREAM, AuditFileError, read_entries, verify_file
    from proxy.review.verify import check_labels

    if args.audit is not None:
        source, chain = str(args.audit), verify_file(args.audit)
    else:
        source = f"stream {args.stream or DEFAULT_STREAM}"
        chain, records = asyncio.run(_stream(args.redis, args.stream or DEFAULT_STREAM))
    print(f"{source}: {chain.describe()}")
    if not chain.ok:
        return 1
    if args.audit is not None:
        try:
            records = [entry["record"] for entry in read_entries(args.audit)]
        except AuditFileError as exc:
            raise CliError(f"{args.audit}: {exc}") from None
    check = check_labels(_labelled(args), records)
    print(f"review labels: {check.describe()}")
    return 0 if check.ok else 1


async def _stream(url: str, stream: str) -> tuple[ChainReport, list[dict[str, Any]]]:
    """The stream's chain report and its records, oldest first."""
    import redis.asyncio as aioredis

    from proxy.audit import stream_entries, verify_redis

    chain = await verify_redis(url, stream)
    client = aioredis.Redis.from_url(url)
    try:
        return chain, [entry["record"] async for entry in stream_entries(client, stream)]
    finally:
        await client.aclose()


def _as_json(report: Report) -> dict[str, Any]:
    return {
        "overall": asdict(report.overall),
        "groups": [asdict(s) for s in report.groups],
        "confusion": [
            {"predicted": p, "truth": t, "reviewed": n, "estimated": w}
            for (p, t), (n, w) in sorted(report.confusion.items())
        ],
        "agreement": asdict(report.agreement),
    }


def _fmt(e: Estimate | None) -> str:
    if e is None:
        return "-"
    return f"{e.value:.3f} [{e.lower:.3f}, {e.upper:.3f}] n={e.n}"


def _section(section: Section, out: TextIO) -> None:
    print(f"== {section.name}: {section.reviewed} sentences reviewed", file=out)
    print(f"verified responses, precision: {_fmt(section.verified_responses)}", file=out)
    print(f"{'verdict':<22}{'precision [95% CI]':<34}recall [95% CI]", file=out)
    for row in section.verdicts:
        print(f"{row.verdict:<22}{_fmt(row.precision):<34}{_fmt(row.recall)}", file=out)


def _print(report: Report, out: TextIO) -> None:
    if report.overall.reviewed == 0:
        print("no labelled items yet", file=out)
        return
    _section(report.overall, out)
    for section in report.groups:
        print(file=out)
        _section(section, out)
    print("\nconfusion (verifier -> reviewers): reviewed / estimated in traffic", file=out)
    for (predicted, truth), (n, weight) in sorted(report.confusion.items()):
        print(f"  {predicted:<20} -> {truth:<20} {n:>6} / {weight:,.0f}", file=out)
    a = report.agreement
    kappa = "-" if a.kappa is None else f"{a.kappa:.2f}"
    print(
        f"\ntwo reviewers agreed on {a.agreed} of {a.items} items (Cohen's kappa {kappa})", file=out
    )
