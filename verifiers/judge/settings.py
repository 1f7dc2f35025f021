"""``escalate:``, the configuration of the cascade from the bundled model to an LLM judge.

It sits in ``verification.verifier.escalate`` (every tenant) and may be replaced per policy
(``escalate:`` in a policy file, so per tenant through the policy's ``match``). The classes are
the runtime model and, validated by pydantic's ``TypeAdapter``, the schema of that section:
unknown keys are errors, as in policy files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, ClassVar

from pydantic import ConfigDict, Field, TypeAdapter

from verifiers._types import Claim, Verdict

_STRICT: ConfigDict = ConfigDict(extra="forbid")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
DEFAULT_MAX_CLAIMS = 8
DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_CONTEXT_TOKENS = 1500  # the abstracts' full text in the judge request (global view)
DEFAULT_WINDOWS_PER_CLAIM = 3
DEFAULT_CACHE_TTL_SECONDS = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class EscalationRule:
    """Sends a claim to the judge when every condition it sets holds (set at least one)."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    name: Annotated[str, Field(pattern=_NAME.pattern)]
    confidence_below: Annotated[float, Field(gt=0, le=1)] | None = None
    harm_at_least: Annotated[int, Field(ge=1, le=5)] | None = None
    verdict_in: tuple[Verdict, ...] | None = None
    needs_review: bool | None = None  # true: claims marked needs_review (below review_below)

    def __post_init__(self) -> None:
        if (
            self.confidence_below is None
            and self.harm_at_least is None
            and not self.verdict_in
            and self.needs_review is None
        ):
            raise ValueError(f"escalation rule {self.name!r} needs at least one condition")

    def matches(self, claim: Claim) -> bool:
        return (
            (self.needs_review is None or claim.needs_review is self.needs_review)
            and (self.confidence_below is None or claim.confidence < self.confidence_below)
            and (self.harm_at_least is None or claim.harm >= self.harm_at_least)
            and (not self.verdict_in or claim.verdict in self.verdict_in)
        )


@dataclass(frozen=True, slots=True)
class EscalationSettings:
    """``judge``: a model name from the proxy's ``models:`` (its upstream and key are reused)
    or any litellm model string. ``when``: rules, the first that matches a claim sends it.
    ``max_claims`` per response; ``timeout_seconds`` per judge request (the bundled verdicts
    stand past it); ``tokens_per_minute``: each tenant's judge budget (None: unlimited)."""

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    enabled: bool = True
    judge: Annotated[str, Field(min_length=1)] | None = None
    when: tuple[EscalationRule, ...] = ()
    max_claims: Annotated[int, Field(ge=1, le=100)] = DEFAULT_MAX_CLAIMS
    timeout_seconds: Annotated[float, Field(gt=0)] = DEFAULT_TIMEOUT_SECONDS
    tokens_per_minute: Annotated[int, Field(ge=1)] | None = None
    context_tokens: Annotated[int, Field(ge=0)] = DEFAULT_CONTEXT_TOKENS
    windows_per_claim: Annotated[int, Field(ge=1, le=10)] = DEFAULT_WINDOWS_PER_CLAIM
    cache_ttl_seconds: Annotated[float, Field(ge=0)] = DEFAULT_CACHE_TTL_SECONDS

    def __post_init__(self) -> None:
        if self.enabled and (self.judge is None or not self.when):
            raise ValueError("escalation needs a 'judge' and at least one 'when' rule")
        names = [rule.name for rule in self.when]
        if len(set(names)) != len(names):
            raise ValueError("escalation rule names must be unique")

    def rule_for(self, claim: Claim) -> EscalationRule | None:
        """The first rule that sends ``claim`` to the judge, if any."""
        return next((rule for rule in self.when if rule.matches(claim)), None)


@cache
def _adapter() -> TypeAdapter[EscalationSettings]:
    return TypeAdapter(EscalationSettings)


def parse_escalation(raw: Any) -> EscalationSettings:
    """Validate a plain ``escalate:`` mapping; pydantic's ``ValidationError`` names the key."""
    return _adapter().validate_python(raw)
