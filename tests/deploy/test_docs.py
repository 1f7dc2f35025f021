"""The operator docs' commands and configuration snippets work with this build: every
``veriproxy`` command line parses with the real CLI, every YAML snippet is valid settings."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from deployfiles import DEPLOY, ROOT

from proxy.cli import build_parser
from proxy.config import settings_from_mapping

DOCS = (DEPLOY / "README.md", ROOT / "docs" / "operations.md")
FENCE = re.compile(r"^\s*```(\w+)\n(.*?)^\s*```", re.MULTILINE | re.DOTALL)
INLINE = re.compile(r"(?<!`)`(veriproxy [^`]+)`")


def _blocks(path: Path, language: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [body for lang, body in FENCE.findall(text) if lang == language]


def _command_lines(path: Path) -> list[str]:
    lines = []
    for block in _blocks(path, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip().startswith("veriproxy "):
                lines.append(line.strip())
    text = re.sub(r"\s*\n\s*", " ", path.read_text(encoding="utf-8"))
    return lines + INLINE.findall(text)


@pytest.mark.parametrize(
    "command", [c for doc in DOCS for c in _command_lines(doc)], ids=lambda c: c[:40]
)
def test_documented_commands_parse(command: str) -> None:
    parser = build_parser()
    argv = shlex.split(command)[1:]
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert argv[0] in commands
    if len(argv) > 1:
        parser.parse_args(argv)


@pytest.mark.parametrize("snippet", _blocks(DEPLOY / "README.md", "yaml"))
def test_documented_settings_are_valid(snippet: str) -> None:
    settings_from_mapping(yaml.safe_load(snippet), {"OPENAI_API_KEY": "documented"})
