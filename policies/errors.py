"""Errors of the policy package.

PolicyError
 ├── PolicyFileError     a policy file is not valid YAML or breaks the schema (file, line, key)
 └── PolicyNotFound      no policy by that name, or none matches and there is no default
"""

from __future__ import annotations

from dataclasses import dataclass


class PolicyError(Exception):
    """Base of every policy error."""


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem in a policy file; ``key`` is the dotted path (``sentence_rules[0].when``)."""

    file: str
    line: int
    key: str
    message: str

    def __str__(self) -> str:
        where = f" {self.key}:" if self.key else ""
        return f"{self.file}:{self.line}:{where} {self.message}"


class PolicyFileError(PolicyError):
    """A policy file was rejected; ``issues`` lists every problem found, each with its line."""

    def __init__(self, issues: tuple[Issue, ...]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


class PolicyNotFound(PolicyError, LookupError):
    """No policy by that name, or no policy matches and no default is loaded."""
