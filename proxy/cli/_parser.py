"""The command line's contract, shared by every command: exit codes, one-line errors, help that
shows defaults, and the ``--data-dir`` option.

Exit codes: ``0`` success (``check``: the answer passed), ``1`` the thing checked failed
(``check``'s ``--fail-on`` threshold, a broken audit chain, an invalid policy file), ``2`` a
usage or input error. Every error is one line on stderr, ``veriproxy COMMAND: error: MESSAGE``;
commands raise ``CliError`` and ``proxy.cli.main`` prints it.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from verifiers.eval.data import DATA_DIR_ENV, data_dir

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

_MISSING_REQUIRED = re.compile(r"arguments? .*(are|is) required")
_NEGATIVE_NUMBER = re.compile(r"-\d+$|-\d*\.\d+$")


class CliError(Exception):
    """A usage or input error: ``main`` prints its message as one line and exits with 2."""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Appends each option's default to its help, except where there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == []:
            return action.help
        return super()._get_help_string(action)


class CliParser(argparse.ArgumentParser):
    """``ArgumentParser`` for every ``veriproxy`` command and subcommand (``add_parser`` makes
    subparsers of the parent's class).

    - Errors are one line, prefixed with the command (``veriproxy check: error: ...``).
    - A misspelt option is named as unrecognised even when a required argument is also missing
      (argparse checks required arguments first, so ``--evidense`` would read "one of the
      arguments --evidence --pmids is required"), with the closest real option suggested.
    - Options are never abbreviated: a script's ``--evid`` must not change meaning the day a
      second option starts with it.
    - Help shows defaults. ``args.parser`` is the innermost parser, for ``args.parser.error``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._argv: list[str] = []
        self.set_defaults(parser=self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = getattr(parsed, "parser", self)
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def error(self, message: str) -> NoReturn:
        unknown = self._unknown_options()
        if unknown and _MISSING_REQUIRED.search(message):
            message = f"unrecognized arguments: {' '.join(unknown)}"
        if message.startswith("unrecognized arguments") and unknown:
            close = difflib.get_close_matches(unknown[0], self._option_string_actions, n=1)
            if close:
                message += f" (did you mean {close[0]}?)"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")

    def _unknown_options(self) -> list[str]:
        """Option-like words of this parser's arguments that it does not define."""
        unknown = []
        for word in self._argv:
            if word == "--":
                break
            if not word.startswith("-") or word == "-" or _NEGATIVE_NUMBER.match(word):
                continue
            name = word.split("=", 1)[0]
            if name not in self._option_string_actions:
                unknown.append(name)
        return unknown


def one_line(message: str) -> str:
    """A (possibly multi-line) message as the single line an error is printed on."""
    return "; ".join(line.strip() for line in message.splitlines() if line.strip())


def describe_os_error(exc: OSError) -> str:
    """``path: reason`` for a file that could not be read or written."""
    reason = (exc.strerror or str(exc)).lower()
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


def existing_dir(value: str) -> Path:
    path = Path(value)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(
            f"no such directory: {path.resolve()} ({value!r} from the current directory; "
            f"run from the repository root, pass --data-dir or set {DATA_DIR_ENV})"
        )
    return path


def add_data_dir(parser: argparse.ArgumentParser, what: str = "the public datasets") -> None:
    """``--data-dir``, defaulting to the one data setting (``verifiers.eval.data``); a relative
    default is relative to the current directory, which the help resolves."""
    default = data_dir()
    resolved = str(default.resolve()).replace("%", "%%")
    parser.add_argument(
        "--data-dir",
        type=existing_dir,
        default=str(default),
        metavar="DIR",
        help=f"{what}, or ${DATA_DIR_ENV} "
        f"(default: %(default)s, relative to the current directory: {resolved})",
    )


def add_eval_flags(
    parser: argparse.ArgumentParser, limit: str = "first N items of each source"
) -> None:
    """The flags every ``eval`` target over the held-out items shares: ``--data-dir``,
    ``--limit`` (``limit``: what N counts) and ``--json``."""
    add_data_dir(parser)
    parser.add_argument("--limit", type=int, default=None, help=limit)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
