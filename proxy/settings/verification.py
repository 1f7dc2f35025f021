"""``verification:``, the verification step (used by :mod:`proxy.verification`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from annotated_types import Ge, Gt, MinLen

from proxy.settings._section import Section

if TYPE_CHECKING:
    # Not imported at run time: it loads the verifier. proxy.config names it for pydantic
    # when it validates a file that configures the verifier (see proxy.config._schema).
    from verifiers.config import VerifierConfig
    from verifiers.judge.settings import EscalationSettings

DEFAULT_POLICY = "default"
DEFAULT_TIMEOUT_SECONDS = 20.0
DEFAULT_RELOAD_SECONDS = 2.0
DEFAULT_REPORT_TTL_SECONDS = 24 * 3600.0  # how long GET .../{id}/verification finds a report
# The same default as ``verifiers.segment.MAX_SENTENCE_CHARS`` (not imported: reading the
# configuration must not load the verifier).
DEFAULT_MAX_SENTENCE_CHARS = 2000


@dataclass(frozen=True, slots=True)
class VerificationSettings(Section):
    """``enabled`` switches the whole step; ``verifier`` (``verifiers.config.VerifierConfig``,
    every key declared and checked there; None: the shipped verifier) is handed to
    ``verifiers.Verifier.from_config``; ``timeout_seconds`` bounds each verification call (a
    timeout is a verifier error and the policy's ``on_verifier_error`` decides, and
    ``/v1/verify`` stops at it with an ``unverified`` report); ``max_sentence_chars`` is the
    longest sentence a stream may hold open before it is verified as it stands;
    ``policies_dir`` replaces the shipped presets."""

    enabled: bool = True
    timeout_seconds: Annotated[float, Gt(0)] = DEFAULT_TIMEOUT_SECONDS
    verifier: VerifierConfig | None = None
    policies_dir: Annotated[str, MinLen(1)] | None = None
    default_policy: Annotated[str, MinLen(1)] = DEFAULT_POLICY
    reload_seconds: Annotated[float, Gt(0)] = DEFAULT_RELOAD_SECONDS
    report_ttl_seconds: Annotated[float, Gt(0)] = DEFAULT_REPORT_TTL_SECONDS
    max_sentence_chars: Annotated[int, Ge(100)] = DEFAULT_MAX_SENTENCE_CHARS

    @property
    def escalate(self) -> EscalationSettings | None:
        """``verifier.escalate``: the claims its rules pick go to an LLM judge (a policy's own
        ``escalate`` replaces it for the requests that policy serves)."""
        return None if self.verifier is None else self.verifier.escalate
