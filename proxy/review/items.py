"""What a reviewer is shown: one answer sentence as the proxy decided it (:class:`ReviewItem`),
and what a reviewer decides about it (:class:`Label`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Quote:
    """An evidence window that decided the sentence (or one of its claims)."""

    pmid: str
    title: str
    text: str
    start: int  # offsets into the abstract
    end: int
    label: str  # the NLI label of the window against the claim
    score: float
    abstract: str = ""  # the abstract the offsets index into; empty when it was not at hand


@dataclass(frozen=True, slots=True)
class FailedCheck:
    name: str
    detail: str


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One sampled sentence. ``inclusion`` is the probability that the sampler picked it, so an
    estimate can weigh it back to all traffic (weight ``1 / inclusion``)."""

    request_id: str
    choice: int
    sentence: int  # index of the sentence in its answer
    tenant: str | None  # None: keyless local mode
    model: str
    time: float  # Unix seconds
    text: str
    verdict: str
    confidence: float
    harm: int
    action: str  # the policy's action on the sentence
    response_status: str  # verified | flagged | redacted | blocked
    response_sentences: int  # sentences in the answer (a whole response is complete at this)
    needs_review: bool
    reason: str  # see ``REASONS``
    inclusion: float
    response_inclusion: float | None  # set when the whole response entered (verified ones)
    evidence: tuple[Quote, ...] = ()
    failed_checks: tuple[FailedCheck, ...] = ()
    rules_fired: tuple[str, ...] = ()
    decided_by: str = ""
    id: int | None = None  # the store's id, once stored

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "request_id": self.request_id,
            "choice": self.choice,
            "sentence": self.sentence,
            "tenant": self.tenant,
            "model": self.model,
            "time": self.time,
            "text": self.text,
            "verdict": self.verdict,
            "confidence": self.confidence,
            "harm": self.harm,
            "action": self.action,
            "response_status": self.response_status,
            "needs_review": self.needs_review,
            "reason": self.reason,
            "inclusion": self.inclusion,
            "evidence": [
                {
                    "pmid": q.pmid,
                    "title": q.title,
                    "text": q.text,
                    "start": q.start,
                    "end": q.end,
                    "label": q.label,
                    "score": q.score,
                    "abstract": q.abstract,
                }
                for q in self.evidence
            ],
            "failed_checks": [{"name": c.name, "detail": c.detail} for c in self.failed_checks],
            "rules_fired": list(self.rules_fired),
            "decided_by": self.decided_by,
        }


# Why an item entered: a policy acted on it, the verifier asked for review, it was drawn at its
# verdict's rate, or its whole (verified) response was drawn.
REASONS = ("action", "needs_review", "sampled", "response")


@dataclass(frozen=True, slots=True)
class Label:
    """One reviewer's decision on one item: was the verdict right, and if not, which is."""

    item_id: int
    reviewer: str  # the reviewer's key id
    correct: bool
    verdict: str  # the right verdict (the item's own when ``correct``)
    note: str
    time: float


@dataclass(frozen=True, slots=True)
class Labelled:
    """An item with its labels, oldest first."""

    item: ReviewItem
    labels: tuple[Label, ...]


MAX_NOTE_CHARS = 2_000  # a reviewer's note
