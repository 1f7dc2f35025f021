"""Settings of the verification step (the ``verification:`` config section)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from verifiers.judge.settings import EscalationSettings

DEFAULT_POLICY = "default"
DEFAULT_TIMEOUT_SECONDS = 20.0
DEFAULT_RELOAD_SECONDS = 2.0
DEFAULT_REPORT_TTL_SECONDS = 24 * 3600.0  # how long GET .../{id}/verification finds a report
# The same default as ``verifiers.segment.MAX_SENTENCE_CHARS`` (not imported: reading the
# configuration must not load the verifier).
DEFAULT_MAX_SENTENCE_CHARS = 2000


@dataclass(frozen=True, slots=True)
class VerificationSettings:
    """``enabled`` switches the whole step; ``verifier`` is handed to
    ``verifiers.Verifier.from_config`` (NLI backend, decomposer, harm scorer, windows);
    ``timeout_seconds`` bounds each verification call (a timeout is a verifier error and the
    policy's ``on_verifier_error`` decides, and ``/v1/verify`` stops at it with an
    ``unverified`` report); ``max_sentence_chars`` is the longest sentence a stream may hold
    open before it is verified as it stands; ``policies_dir`` replaces the shipped presets;
    ``escalate`` (``verifier.escalate`` in the file) sends the claims its rules pick to an LLM
    judge (a policy's own ``escalate`` replaces it for the requests that policy serves)."""

    enabled: bool = True
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    verifier: Mapping[str, Any] = field(default_factory=dict)
    policies_dir: str | None = None
    default_policy: str = DEFAULT_POLICY
    reload_seconds: float = DEFAULT_RELOAD_SECONDS
    report_ttl_seconds: float = DEFAULT_REPORT_TTL_SECONDS
    max_sentence_chars: int = DEFAULT_MAX_SENTENCE_CHARS
    escalate: EscalationSettings | None = None
