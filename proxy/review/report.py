"""What ``veriproxy review report`` prints, and what ``veriproxy review export`` writes.

:func:`build_report` computes, from every labelled item, the precision and recall of each
verdict (overall and per model or tenant), the precision of verified responses, the confusion
matrix and the reviewers' agreement; see :mod:`proxy.review.estimate` for how.
:func:`export_rows` turns labelled items into (evidence span, sentence, verdict) rows that read
as NLI pairs (``premise``, ``hypothesis``, ``expected``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from proxy.review.estimate import (
    Agreement,
    Estimate,
    Judged,
    agreement,
    confusion,
    grouped,
    judged,
    precision,
    recall,
    verified_responses,
)
from proxy.review.items import Labelled, ReviewItem
from proxy.settings.review import VERDICTS

GROUPINGS: dict[str, Callable[[ReviewItem], str | None]] = {
    "model": lambda item: item.model,
    "tenant": lambda item: item.tenant,
}
# A reviewer's verdict as an NLI label; verdicts about citations or check-worthiness have none.
NLI_LABELS = {
    "supported": "entailment",
    "contradicted": "contradiction",
    "unsupported": "neutral",
    "partially_supported": "neutral",
}


@dataclass(frozen=True, slots=True)
class VerdictRow:
    verdict: str
    precision: Estimate | None  # None: the verifier gave this verdict to no reviewed item
    recall: Estimate | None  # None: reviewers gave it to none


@dataclass(frozen=True, slots=True)
class Section:
    """The estimates over one set of items (all of them, or one model's or tenant's)."""

    name: str
    reviewed: int
    verified_responses: Estimate | None
    verdicts: tuple[VerdictRow, ...]


@dataclass(frozen=True, slots=True)
class Report:
    overall: Section
    groups: tuple[Section, ...]  # by model or tenant, when asked
    confusion: dict[tuple[str, str], tuple[int, float]]
    agreement: Agreement


def _section(name: str, rows: Sequence[Judged]) -> Section:
    verdicts = tuple(
        VerdictRow(v, precision(rows, v), recall(rows, v))
        for v in VERDICTS
        if any(r.item.verdict == v or r.truth == v for r in rows)
    )
    return Section(name, len(rows), verified_responses(rows), verdicts)


def build_report(found: Sequence[Labelled], by: str | None = None) -> Report:
    rows = judged(found)
    groups = (
        tuple(_section(name, part) for name, part in grouped(rows, GROUPINGS[by]).items())
        if by is not None
        else ()
    )
    return Report(_section("all", rows), groups, confusion(rows), agreement(found))


def export_rows(found: Sequence[Labelled]) -> list[dict[str, Any]]:
    """One row per labelled item, truth from its first label. ``premise`` is the evidence span
    that decided the sentence (the highest scoring), empty when there was none; ``expected`` is
    the NLI label of the right verdict, None for verdicts that are not about support."""
    out = []
    for x in found:
        item, truth = x.item, x.labels[0].verdict
        span = max(item.evidence, key=lambda q: q.score, default=None)
        out.append(
            {
                "request_id": item.request_id,
                "choice": item.choice,
                "sentence": item.sentence,
                "tenant": item.tenant,
                "model": item.model,
                "pmid": span.pmid if span else None,
                "premise": span.text if span else "",
                "hypothesis": item.text,
                "predicted": item.verdict,
                "verdict": truth,
                "expected": NLI_LABELS.get(truth),
                "inclusion": item.inclusion,
                "labels": len(x.labels),
            }
        )
    return out
