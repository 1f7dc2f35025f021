"""The ``veriproxy`` command. Each subcommand lives in its own module under ``proxy/cli/`` and
exposes ``register(subparsers)``; heavy imports happen inside the command, not here, so
``veriproxy --help`` stays instant.

Exit codes: 0 success, 1 the thing checked failed (``check --fail-on``, ``audit verify``,
``policy validate``), 2 a usage or input error, 130 interrupted. Errors are one line on stderr
(``veriproxy COMMAND: error: MESSAGE``), never a traceback: commands raise ``CliError`` and
``main`` prints it, as it does for a file that cannot be read or written (``OSError``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from proxy.cli._parser import EXIT_USAGE, CliError, CliParser, describe_os_error, one_line

__all__ = ["CliError", "build_parser", "main"]

# Module names under proxy.cli, in the order they appear in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "serve",
    "eval",
    "audit",
    "review",
    "check",
    "policy",
    "train_nli",
    "train_roles",
    "keys",
    "index",
    "demo",
)
EXIT_INTERRUPTED = 130


def build_parser() -> CliParser:
    parser = CliParser(
        prog="veriproxy",
        description="OpenAI-compatible proxy that grounds answers in PubMed and verifies them.",
        epilog="Exit codes: 0 success, 1 the check failed (check --fail-on, audit verify, "
        "policy validate), 2 usage or input error.",
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="veriproxy COMMAND --help for more"
    )
    for name in COMMAND_MODULES:
        importlib.import_module(f"proxy.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    prog = args.parser.prog
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        message = str(exc)
    except OSError as exc:  # an input or output path that cannot be read or written
        message = describe_os_error(exc)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"{prog}: error: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
