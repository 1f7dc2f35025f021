"""A label as an audit event: each label joins the hash-chained audit log as its own entry, so
a label cannot be changed or removed in the store without the log disagreeing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proxy.errors import sanitise
from proxy.review.items import Label, ReviewItem
from proxy.scrub import without_surrogates

EVENT = "review_label"


@dataclass(frozen=True, slots=True)
class LabelEvent:
    item: ReviewItem
    label: Label

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": EVENT,
            "time": self.label.time,
            "tenant": self.item.tenant,
            "request_id": self.item.request_id,
            "choice": self.item.choice,
            "sentence": self.item.sentence,
            "item_id": self.label.item_id,
            "reviewer": self.label.reviewer,
            "predicted": self.item.verdict,
            "correct": self.label.correct,
            "verdict": self.label.verdict,
            "note": logged_note(self.label.note),
        }


def logged_note(note: str) -> str:
    """A note as the audit log keeps it: nothing that looks like a key, no lone surrogates."""
    return sanitise(without_surrogates(note), limit=None)
