"""The policy file format as frozen dataclasses.

The same classes are the runtime model and, validated by pydantic's ``TypeAdapter``, the schema of
a YAML policy file (``policies/schema.json`` is generated from them). Every mapping forbids
unknown keys, so a typo is an error rather than a rule that silently never fires.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from policies._decided import Action
from verifiers import Verdict
from verifiers.judge.settings import EscalationSettings

_STRICT: ConfigDict = ConfigDict(extra="forbid")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")

DEFAULT_BLOCK_MESSAGE = (
    "This answer was withheld: it makes claims that the retrieved evidence contradicts or does "
    "not support."
)
DEFAULT_REDACT_MESSAGE = "[removed: not supported by the cited evidence]"
DEFAULT_ERROR_MESSAGE = "This answer was withheld: it could not be verified."

# Version 2 follows annotation protocol 2.0: ``risk`` rises with unsupported content and the old
# meaning (the supported share) is ``support``. A version-1 file's ``risk`` condition would
# silently invert, so it is refused rather than read.
POLICY_VERSION = 2
RISK_CHANGED = (
    "'risk' changed meaning in policy version 2: it was the harm-weighted supported share "
    "(higher is better), which is now 'support'; 'risk' now rises with unsupported or "
    "contradicted content. Write 'support' for the old test (risk: {lt: 0.5} becomes support: "
    "{lt: 0.5}) and set 'version: 2'"
)


class StreamMode(StrEnum):
    """``annotate``: stream at once, annotate after; ``gate``: release each sentence only after it
    is verified and allowed."""

    ANNOTATE = "annotate"
    GATE = "gate"


class OnVerifierError(StrEnum):
    """What to do when verification fails or times out: deliver as ``unverified`` (open), block
    (closed) or deliver flagged with an unverified note (flag)."""

    OPEN = "open"
    CLOSED = "closed"
    FLAG = "flag"


class LegacyCompletions(StrEnum):
    """``POST /v1/completions``: ``verify`` its text like a chat answer, or pass it through
    with an ``unverified`` report (base models continue a prompt; evidence may not fit it)."""

    VERIFY = "verify"
    UNVERIFIED = "unverified"


@dataclass(frozen=True, slots=True)
class Bounds:
    """A numeric test; every bound given must hold (``{gte: 4}`` is harm >= 4)."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    gt: float | None = None
    gte: float | None = None
    lt: float | None = None
    lte: float | None = None
    eq: float | None = None

    def __post_init__(self) -> None:
        if all(getattr(self, k) is None for k in ("gt", "gte", "lt", "lte", "eq")):
            raise ValueError("give at least one of gt, gte, lt, lte, eq")

    def test(self, value: float) -> bool:
        return (
            (self.gt is None or value > self.gt)
            and (self.gte is None or value >= self.gte)
            and (self.lt is None or value < self.lt)
            and (self.lte is None or value <= self.lte)
            and (self.eq is None or value == self.eq)
        )


@dataclass(frozen=True, slots=True)
class SentenceWhen:
    """Conditions on one sentence annotation; all given must hold."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    verdict: frozenset[Verdict] | None = None
    harm: Bounds | None = None
    confidence: Bounds | None = None
    support: Bounds | None = None  # harm-weighted supported share of its claims, 0-1
    risk: Bounds | None = None  # harm-weighted unsupported share of its claims, 0-1
    # false: the sentence cites at least one PMID that is not in the evidence;
    # true: it cites at least one and every citation is valid.
    citation_valid: bool | None = None
    # true: the verifier cannot vouch for the sentence's verdict (a deciding claim's calibrated
    # confidence is below ``review_below``); false: it can.
    needs_review: bool | None = None
    # true: a quoted citation's words are not in the abstract it cites (a misquote, or words
    # of another abstract); false: it quotes and every quote was found where it was cited.
    misquote: bool | None = None

    def __post_init__(self) -> None:
        _require_condition(self)


@dataclass(frozen=True, slots=True)
class ResponseWhen:
    """Conditions on the whole response; all given must hold. Verdict names count sentences."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    support: Bounds | None = None
    risk: Bounds | None = None
    invalid_citations: Bounds | None = None
    sentences: Bounds | None = None
    supported: Bounds | None = None
    partially_supported: Bounds | None = None
    contradicted: Bounds | None = None
    unsupported: Bounds | None = None
    invalid_citation: Bounds | None = None
    uncited: Bounds | None = None
    not_checkworthy: Bounds | None = None
    needs_review: Bounds | None = None  # sentences that need review
    misquotes: Bounds | None = None  # sentences with a quote not found where it was cited

    def __post_init__(self) -> None:
        _require_condition(self)


@dataclass(frozen=True, slots=True)
class SentenceRule:
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    name: str
    when: SentenceWhen
    action: Action
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ResponseRule:
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    name: str
    when: ResponseWhen
    action: Action
    message: str | None = None


@dataclass(frozen=True, slots=True)
class Match:
    """Which requests select this policy automatically: shell-style globs on the tenant (the
    proxy maps API keys to tenants) and the model. Empty on both: chosen only by name."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    tenants: tuple[str, ...] = ()
    models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Messages:
    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    block: str = DEFAULT_BLOCK_MESSAGE
    redact: str = DEFAULT_REDACT_MESSAGE
    verifier_error: str = DEFAULT_ERROR_MESSAGE


@dataclass(frozen=True, slots=True)
class Policy:
    """One policy file."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    name: Annotated[str, Field(pattern=_NAME.pattern)]
    # 1 when not given: a file that predates version 2 must not have its ``risk`` read anew.
    version: Literal[1, 2] = 1
    description: str = ""
    match: Match = field(default_factory=Match)
    stream_mode: StreamMode = StreamMode.ANNOTATE
    shadow: bool = False
    on_verifier_error: OnVerifierError = OnVerifierError.FLAG
    # May a caller skip verification with ``veriproxy.verify: false``? Off unless the policy
    # says so: a policy that guards its users must not be one request option away from nothing.
    allow_client_opt_out: bool = False
    legacy_completions: LegacyCompletions = LegacyCompletions.VERIFY
    messages: Messages = field(default_factory=Messages)
    sentence_rules: tuple[SentenceRule, ...] = ()
    response_rules: tuple[ResponseRule, ...] = ()
    # Replaces ``verification.verifier.escalate`` for the requests this policy serves (so per
    # tenant through ``match``); ``{enabled: false}`` turns the LLM judge off for them.
    escalate: EscalationSettings | None = None

    def __post_init__(self) -> None:
        names = [r.name for r in self.sentence_rules] + [r.name for r in self.response_rules]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"rule names must be unique; repeated: {', '.join(duplicates)}")
        old = _risk_conditions(self)
        if self.version < POLICY_VERSION and old:
            raise RiskChanged(self.version, old)


class RiskChanged(ValueError):
    """A policy file older than version 2 tests ``risk``, whose meaning changed; ``conditions``
    are their key paths (``("response_rules", 0, "when", "risk")``), for the loader's lines."""

    def __init__(self, version: int, conditions: tuple[tuple[str | int, ...], ...]) -> None:
        self.conditions = conditions
        paths = ", ".join(f"{k}[{i}].when.risk" for k, i, *_ in conditions)
        super().__init__(f"version {version}: {paths}: {RISK_CHANGED}")


def _risk_conditions(policy: Policy) -> tuple[tuple[str | int, ...], ...]:
    rules = [("sentence_rules", i, r.when.risk) for i, r in enumerate(policy.sentence_rules)]
    rules += [("response_rules", i, r.when.risk) for i, r in enumerate(policy.response_rules)]
    return tuple((key, i, "when", "risk") for key, i, risk in rules if risk is not None)


def _require_condition(when: SentenceWhen | ResponseWhen) -> None:
    if all(getattr(when, f.name) is None for f in dataclasses.fields(when)):
        raise ValueError("a rule needs at least one condition")


@cache
def policy_adapter() -> TypeAdapter[Policy]:
    return TypeAdapter(Policy)


def policy_json_schema() -> dict[str, Any]:
    """The JSON Schema of a policy file (published as ``policies/schema.json``)."""
    schema = policy_adapter().json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "veriproxy policy"
    return schema


def policy_json_schema_text() -> str:
    return json.dumps(policy_json_schema(), indent=2, sort_keys=True) + "\n"
