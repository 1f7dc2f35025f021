"""What every deterministic check is, and the registry the verifier takes them from by name.

A check reads a claim (or a whole sentence) and the evidence chosen for it and returns
``CheckResult``\\ s. It declares what a failed result does to the verdict NLI gave, so the
verifier needs to know nothing about any one check: config turns checks off
(``checks: [numbers, quotes]``) and a user swaps one by registering their own under its name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from verifiers._registry import Registry
from verifiers._types import CheckResult, Evidence

if TYPE_CHECKING:  # windows imports checks.normalise: a runtime import here would be a cycle
    from verifiers.windows import Window


class Effect(StrEnum):
    """What a failed result does to the verdict NLI gave a claim; the strongest one applies."""

    # Contradicted whatever NLI said: the evidence states another number, or the claim copies
    # the evidence with its direction flipped. Small NLI models gloss over both.
    CONTRADICTS = "contradicts"
    # A claim NLI called supported is contradicted: it copies the evidence, polarity flipped.
    REFUTES_SUPPORT = "refutes_support"
    # A claim NLI called supported is unsupported: it names a quantity or an entity the
    # evidence for it never names.
    WITHHOLDS_SUPPORT = "withholds_support"


class Scope(StrEnum):
    """What a check reads."""

    CLAIM = "claim"  # each claim, against the windows chosen for it
    # The whole sentence, against the abstracts it draws on; its results go on the sentence,
    # and a failed one makes a supported sentence partially supported (a misquote).
    SENTENCE = "sentence"


@dataclass(frozen=True, slots=True)
class CheckInput:
    """The text a check reads and the evidence chosen for it."""

    text: str  # the claim (without citation markers), or the sentence for sentence scope
    # The abstracts the sentence cites, or all when it cites none; none for a claim judged
    # against its quoted citation, whose windows and sentences are the quote's sentences.
    evidence: tuple[Evidence, ...]
    # Claim scope only: the windows chosen for the claim (best first), every sentence of the
    # evidence as (PMID, text), and per PMID the abbreviations its abstract defines (short-form
    # token -> the content tokens of its long form).
    windows: tuple[Window, ...] = ()
    sentences: tuple[tuple[str, str], ...] = ()
    abbreviations: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    # The short forms the claim defines itself ("acute respiratory distress syndrome (ARDS)"),
    # keyed as ``abbreviations``'.
    defined: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @property
    def records(self) -> list[tuple[str, str]]:
        """The cited records as (PMID, title and abstract): every window is cut from them. None
        for a claim judged against its quote."""
        return [(ev.pmid, f"{ev.title}\n{ev.abstract}") for ev in self.evidence]


@dataclass(frozen=True, slots=True)
class Check:
    """A deterministic check by name: ``run`` gives its results (none when there is nothing to
    compare); ``effects`` says, per result name, what a failed one does to a claim's verdict."""

    name: str
    run: Callable[[CheckInput], Sequence[CheckResult]]
    effects: Mapping[str, Effect] = field(default_factory=dict)
    scope: Scope = Scope.CLAIM


CHECKS: Registry[Check] = Registry("check")
# The checks a verifier runs unless config lists others, in the order their results appear.
DEFAULT_CHECKS = (
    "numbers",
    "negation",
    "direction",
    "qualifiers",
    "alignment",
    "entities",
    "quotes",
)


def register_check(check: Check) -> Check:
    """Make ``check`` available by its name (replacing a check of that name: a swap)."""
    return CHECKS.add(check.name, check)


def check_names() -> tuple[str, ...]:
    """The names config may list under ``checks``."""
    return CHECKS.names()


def get_checks(names: Iterable[str] | None = None) -> tuple[Check, ...]:
    """The registered checks ``names`` (``DEFAULT_CHECKS`` when None), in that order. An unknown
    name raises ``UnknownComponent`` naming the known ones."""
    chosen = DEFAULT_CHECKS if names is None else (names,) if isinstance(names, str) else names
    return tuple(CHECKS.get(name) for name in dict.fromkeys(chosen))
