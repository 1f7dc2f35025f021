"""What a client may see of an answer the policy decided on.

Two rules of the annotation protocol follow from a policy's decision rather than from the
verifier: a sentence whose words the policy kept back is reported ``withheld`` (its words go,
its verdict stays), and an answer blocked after its text reached the client reads ``flagged``
with ``delivered_before_block``. Both are written here, beside the decisions, so no other layer
writes the policy's vocabulary into a report.
"""

from __future__ import annotations

import dataclasses

from policies._decided import DecidedReport, DecidedSentence, ReportStatus
from policies.engine import SentenceDecision
from verifiers import CheckResult


def withhold(sentence: DecidedSentence, decision: SentenceDecision) -> DecidedSentence:
    """A sentence as a client may see it once the policy kept its words back (redacted,
    blocked, or never released): verdict, evidence and rules stay; its text becomes the
    policy's message, and its citations (their raw text and the PMIDs it named, its list's
    lead's too), its quotes and their checks (the words the model quoted, a misquote's
    difference), claim texts, check details and quoted words in harm reasons go. Only the
    audit log keeps them."""
    return dataclasses.replace(
        sentence,
        text=decision.message or "",
        citations=(),
        lead_citations=(),
        quotes=(),
        claims=tuple(
            dataclasses.replace(
                c,
                text="",
                checks=_without_details(c.checks),
                harm_reasons=_reason_kinds(c.harm_reasons),
            )
            for c in sentence.claims
        ),
        checks=_without_details(sentence.checks),
        harm_reasons=_reason_kinds(sentence.harm_reasons),
        withheld=True,
    )


def delivered_before_block(report: DecidedReport) -> DecidedReport:
    """The report of an answer whose text already reached the client (stream mode
    ``annotate``): a block can cut what follows but cannot take back what was sent, so a
    ``blocked`` report says ``flagged`` with ``delivered_before_block``; any other stands."""
    if report.status is not ReportStatus.BLOCKED:
        return report
    return dataclasses.replace(report, status=ReportStatus.FLAGGED, delivered_before_block=True)


def _without_details(checks: tuple[CheckResult, ...]) -> tuple[CheckResult, ...]:
    return tuple(dataclasses.replace(c, detail="") for c in checks)


def _reason_kinds(reasons: tuple[str, ...]) -> tuple[str, ...]:
    """Harm reasons without the words they quote ("dose: '200 mg'" -> "dose")."""
    return tuple(dict.fromkeys(reason.split(":", 1)[0] for reason in reasons))
