"""The audit record: one per response, built from its :class:`~proxy.outcome.ResponseOutcome`.

It holds what an auditor needs to reconstruct a decision (who, which model and policy, every
sentence's verdict, harm, action, the rules that fired and evidence PMIDs, the support and risk
and the latencies) and, only when configured, text, which may hold patient data: the prompt, the
answer and the words of each sentence a policy redacted or blocked (what a reviewer key reads
back, see :mod:`proxy.audit.review`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from policies import Action
from proxy.errors import sanitise
from proxy.outcome import ResponseOutcome
from proxy.scrub import without_surrogates
from verifiers import EscalationSummary, SentenceAnnotation, to_json

_WITHHELD = (Action.REDACT, Action.BLOCK)
# Bounds on the text a record keeps (``include_text``): one line never grows with an answer.
MAX_SENTENCE_CHARS = 2_000
MAX_TEXT_CHARS = 20_000  # actions whose words a client may not have seen


@dataclass(frozen=True, slots=True)
class AuditSentence:
    index: int
    verdict: str
    harm: int
    action: str
    pmids: tuple[str, ...]
    support: float
    risk: float
    rules_fired: tuple[str, ...] = ()
    text: str | None = None  # a redacted or blocked sentence's own words, only with include_text
    decided_by: str = ""  # the NLI model's version or ``judge:<model>``
    bundled_verdict: str | None = None  # the bundled model's verdict, when a judge was asked
    confidence: float = 0.0  # the calibrated probability that the verdict is right
    needs_review: bool = False  # the verifier cannot vouch for the verdict (review_below)
    premise: str | None = None  # what its claims were judged against: quote | windows
    quotes: tuple[str, ...] = ()  # each quoted citation's status: found | misquote | ...


@dataclass(frozen=True, slots=True)
class AuditRecord:
    request_id: str
    time: float  # Unix seconds
    tenant: str | None
    model: str
    route: str
    policy: str
    status: str
    action: str
    shadow: bool
    support: float
    risk: float
    rules_fired: tuple[str, ...]
    sentences: tuple[AuditSentence, ...]
    latency_ms: Mapping[str, float]
    model_version: str
    error: str | None = None
    prompt: str | None = None
    answer: str | None = None
    choice: int = 0  # which choice of the completion (n > 1: one record per choice)
    delivered_before_block: bool = False
    escalation: EscalationSummary | None = None  # the LLM judge: claims, outcomes, errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "time": self.time,
            "tenant": self.tenant,
            "model": self.model,
            "route": self.route,
            "policy": self.policy,
            "status": self.status,
            "action": self.action,
            "shadow": self.shadow,
            "support": self.support,
            "risk": self.risk,
            "rules_fired": list(self.rules_fired),
            "sentences": [
                {
                    "index": s.index,
                    "verdict": s.verdict,
                    "harm": s.harm,
                    "action": s.action,
                    "pmids": list(s.pmids),
                    "support": s.support,
                    "risk": s.risk,
                    "rules_fired": list(s.rules_fired),
                    "text": s.text,
                    "decided_by": s.decided_by,
                    "bundled_verdict": s.bundled_verdict,
                    "confidence": s.confidence,
                    "needs_review": s.needs_review,
                    "premise": s.premise,
                    "quotes": list(s.quotes),
                }
                for s in self.sentences
            ],
            "latency_ms": dict(self.latency_ms),
            "model_version": self.model_version,
            "error": self.error,
            "prompt": self.prompt,
            "answer": self.answer,
            "choice": self.choice,
            "delivered_before_block": self.delivered_before_block,
            "escalation": to_json(self.escalation),
        }


def _pmids(sentence: SentenceAnnotation) -> tuple[str, ...]:
    """Evidence PMIDs that decided the sentence, then those it cites, without repeats."""
    found = [span.pmid for span in sentence.evidence]
    found += [span.pmid for claim in sentence.claims for span in claim.evidence]
    found += [citation.pmid for citation in sentence.citations]
    found += sentence.lead_citations
    return tuple(dict.fromkeys(found))


def build_record(
    outcome: ResponseOutcome, *, include_text: bool, now: float | None = None
) -> AuditRecord:
    report = outcome.report
    return AuditRecord(
        request_id=outcome.request_id,
        time=time.time() if now is None else now,
        tenant=outcome.tenant,
        model=outcome.model,
        route=outcome.route,
        policy=report.policy,
        status=report.status.value,
        action=report.action.value,
        shadow=report.shadow,
        support=report.support,
        risk=report.risk,
        rules_fired=report.rules_fired,
        sentences=tuple(
            AuditSentence(
                index=s.index,
                verdict=s.verdict.value,
                harm=s.harm,
                action=s.action.value,
                pmids=_pmids(s),
                support=s.support,
                risk=s.risk,
                rules_fired=s.rules_fired,
                text=(
                    _scrubbed(s.text, MAX_SENTENCE_CHARS)
                    if include_text and s.action in _WITHHELD
                    else None
                ),
                decided_by=s.decided_by,
                bundled_verdict=s.bundled_verdict.value if s.bundled_verdict else None,
                confidence=s.confidence,
                needs_review=s.needs_review,
                premise=s.premise.value if s.premise else None,
                quotes=tuple(q.status.value for q in s.quotes),
            )
            for s in report.sentences
        ),
        latency_ms=outcome.latency_ms,
        model_version=report.model_version,
        error=report.error,
        choice=report.choice,
        delivered_before_block=report.delivered_before_block,
        escalation=report.escalation,
        prompt=_scrubbed(outcome.prompt, MAX_TEXT_CHARS) if include_text else None,
        answer=_scrubbed(outcome.answer, MAX_TEXT_CHARS) if include_text else None,
    )


def _scrubbed(text: str | None, limit: int) -> str | None:
    """Text goes to the log without anything that looks like a key (``sk-…``, bearer tokens),
    and without lone surrogates (an upstream may send them; the record must encode as UTF-8).
    Past ``limit`` characters it is cut, and the SHA-256 of the whole follows, so a line stays
    bounded and the text can still be matched against a copy."""
    if text is None:
        return None
    clean = sanitise(without_surrogates(text), limit=None)
    if len(clean) <= limit:
        return clean
    digest = hashlib.sha256(clean.encode()).hexdigest()
    return f"{clean[:limit]}… [cut: {len(clean)} characters, sha256 {digest}]"
