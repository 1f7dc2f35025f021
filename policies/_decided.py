"""The policy's vocabulary, and the protocol objects a client reads: the verifier's annotation
and report with what the policy decided.

``DecidedSentence`` and ``DecidedReport`` extend the verifier's ``SentenceAnnotation`` and
``ResponseReport`` (so everything that reads verdicts takes them as they are) with the policy's
fields. Each added field names the field it follows in the protocol (``metadata["after"]``,
read by ``verifiers.to_json`` and the schema generator), so the JSON is the annotation
protocol's, key for key.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from verifiers import ResponseReport, SentenceAnnotation


class Action(StrEnum):
    """Policy actions, weakest first; the strongest that fires wins."""

    ANNOTATE = "annotate"
    FLAG = "flag"
    REDACT = "redact"
    BLOCK = "block"

    @property
    def rank(self) -> int:
        return _ACTION_RANK[self]


_ACTION_RANK = {Action.ANNOTATE: 0, Action.FLAG: 1, Action.REDACT: 2, Action.BLOCK: 3}


class ReportStatus(StrEnum):
    """Response-level outcome, as the client reads it. ``unverified`` is used when verification
    could not run (the verifier's report has an ``error``) and the policy failed open: the
    answer is delivered but never called verified."""

    VERIFIED = "verified"
    FLAGGED = "flagged"
    REDACTED = "redacted"
    BLOCKED = "blocked"
    UNVERIFIED = "unverified"
    # Verified, no rule fired, but some check-worthy sentence needs review: never "verified".
    NEEDS_REVIEW = "needs_review"


@dataclass(frozen=True, slots=True)
class DecidedSentence(SentenceAnnotation):
    """A verified sentence with the policy's decision recorded on it (the protocol's sentence
    annotation)."""

    action: Action = field(default=Action.ANNOTATE, metadata={"after": "checks"})
    rules_fired: tuple[str, ...] = field(default=(), metadata={"after": "action"})
    # The client was not shown this sentence's words (redacted or blocked): ``text`` is the
    # policy's message and claim texts are empty; the audit log keeps the original.
    withheld: bool = field(default=False, metadata={"after": "rules_fired"})

    @classmethod
    def of(
        cls, sentence: SentenceAnnotation, action: Action, rules_fired: tuple[str, ...]
    ) -> DecidedSentence:
        """``sentence`` as the verifier gave it, with this decision (any earlier one goes)."""
        verified = _verified(sentence, SentenceAnnotation)
        return cls(**verified, action=action, rules_fired=rules_fired)


@dataclass(frozen=True, slots=True)
class DecidedReport(ResponseReport):
    """A verifier's report with the policy's decisions recorded on it (the protocol's response
    report): each sentence's, and the response's status, action and rules."""

    sentences: tuple[DecidedSentence, ...] = ()
    status: ReportStatus = field(default=ReportStatus.VERIFIED, metadata={"after": None})
    policy: str = field(default="", metadata={"after": "evidence"})
    shadow: bool = field(default=False, metadata={"after": "policy"})
    rules_fired: tuple[str, ...] = field(default=(), metadata={"after": "shadow"})
    action: Action = field(default=Action.ANNOTATE, metadata={"after": "rules_fired"})
    # The policy blocked the answer after (part of) its text had reached the client (stream
    # mode ``annotate``): the status is then ``flagged``, never ``blocked``, and the rest of the
    # answer was cut at the block.
    delivered_before_block: bool = field(default=False, metadata={"after": "choice"})

    @classmethod
    def of(
        cls,
        report: ResponseReport,
        sentences: tuple[DecidedSentence, ...],
        *,
        status: ReportStatus,
        action: Action,
        rules_fired: tuple[str, ...],
        policy: str,
        shadow: bool,
    ) -> DecidedReport:
        """``report`` as the verifier gave it, with these sentences and the response's
        decision (any earlier decision goes)."""
        verified = {**_verified(report, ResponseReport), "sentences": sentences}
        return cls(
            **verified,
            status=status,
            action=action,
            rules_fired=rules_fired,
            policy=policy,
            shadow=shadow,
        )


def _verified(obj: object, verifier_type: type[Any]) -> dict[str, Any]:
    """The verifier's fields of ``obj`` (a decided object's too, without its decision)."""
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(verifier_type)}
