"""Read a YAML policy file into a ``Policy``, or say exactly what is wrong and where.

The YAML is composed once into a node tree so that every schema error, reported by pydantic as a
key path, can be given back with the line it refers to: ``clinical.yaml:12: sentence_rules[0].
when.harms: unknown key 'harms' (did you mean 'harm'?)``.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from policies._model import Policy, RiskChanged, policy_adapter
from policies.errors import Issue, PolicyFileError

Loc = tuple[int | str, ...]


def load_policy(path: str | Path) -> Policy:
    """Load and validate one policy file; raises ``PolicyFileError`` listing every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyFileError((Issue(str(path), 0, "", f"cannot read file: {exc}"),)) from exc
    return parse_policy(text, source=str(path))


def parse_policy(text: str, source: str = "<string>") -> Policy:
    """Validate policy YAML ``text``; ``source`` names the file in errors."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise PolicyFileError((Issue(source, line, "", f"invalid YAML: {exc.problem}"),)) from exc
    if root is None:
        raise PolicyFileError((Issue(source, 1, "", "empty policy file"),))
    duplicates = tuple(_duplicate_keys(root, (), source))
    if duplicates:
        raise PolicyFileError(duplicates)
    try:
        return policy_adapter().validate_python(data)
    except ValidationError as exc:
        issues = tuple(_issue(source, root, error) for error in exc.errors())
        raise PolicyFileError(issues) from exc


def _issue(source: str, root: yaml.Node, error: Any) -> Issue:
    loc: Loc = tuple(error["loc"])
    kind, message = error["type"], str(error["msg"])
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, RiskChanged):  # the line of the first condition, not of the file
        loc = (*loc, *cause.conditions[0])
    if kind in {"unexpected_keyword_argument", "extra_forbidden"}:
        message = _unknown_key_message(loc)
    elif kind == "missing":
        message = "required key is missing"
    elif kind == "value_error":
        message = message.removeprefix("Value error, ")
    return Issue(source, _line(root, loc), _key_path(loc), message)


def _line(root: yaml.Node, loc: Loc) -> int:
    """Line (1-based) of the deepest node of ``loc`` that exists in the file."""
    node = root
    line: int = root.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            found = [(k, v) for k, v in node.value if k.value == str(part)]
            if not found:
                break
            key, node = found[0]
            line = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _key_path(loc: Loc) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}" if path else str(part)
    return path


def _unknown_key_message(loc: Loc) -> str:
    key = str(loc[-1])
    allowed = _allowed_keys(loc[:-1])
    hint = difflib.get_close_matches(key, allowed, n=1)
    suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
    return f"unknown key '{key}'{suggestion}; allowed: {', '.join(allowed)}"


def _allowed_keys(loc: Loc) -> list[str]:
    """Field names of the dataclass that ``loc`` points into, walking type hints from Policy."""
    current: Any = Policy
    for part in loc:
        current = _unwrap_optional(current)
        if isinstance(part, int):
            args = typing.get_args(current)
            current = args[0] if args else current
        elif dataclasses.is_dataclass(current):
            current = typing.get_type_hints(current)[part]
    current = _unwrap_optional(current)
    if isinstance(current, type) and dataclasses.is_dataclass(current):
        return [f.name for f in dataclasses.fields(current)]
    return []


def _unwrap_optional(tp: Any) -> Any:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        return members[0] if len(members) == 1 else tp
    return tp


def _duplicate_keys(node: yaml.Node, loc: Loc, source: str) -> list[Issue]:
    """PyYAML keeps the last of two equal keys silently; a policy must not."""
    issues: list[Issue] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            path = (*loc, key.value)
            if key.value in seen:
                line = key.start_mark.line + 1
                issues.append(Issue(source, line, _key_path(path), "duplicate key"))
            seen.add(key.value)
            issues += _duplicate_keys(value, path, source)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            issues += _duplicate_keys(item, (*loc, index), source)
    return issues
