"""The ``veriproxy`` command. Each subcommand lives in its own module under ``proxy/cli/`` and
exposes ``register(subparsers)``; heavy imports happen inside the command, not here, so
``veriproxy --help`` stays instant."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Module names under proxy.cli, in the order they appear in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "serve",
    "eval",
    "audit",
    "check",
    "policy",
    "train_nli",
    "keys",
    "index",
    "demo",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="veriproxy",
        description="OpenAI-compatible proxy that grounds answers in PubMed and verifies them.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"proxy.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = args.func(args)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
