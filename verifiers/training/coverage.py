"""Coverage table: how well a model does on the claims it keeps when its least confident ones
are escalated (to an LLM judge), and the confidence threshold that makes each cut. It is what a
user reads to choose the escalation threshold (escalate when confidence is below X)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from verifiers.nli.decide import Decision
from verifiers.training.evaluate import label_ids, metrics

DEFAULT_FRACTIONS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.5)
# floor(fraction * n) without 0.3 * 10 = 2.9999... style losses.
_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class CoverageRow:
    """One cut: the least confident ``escalated`` of ``total`` claims go elsewhere; the metrics
    are those of the ``kept`` claims, scored against gold."""

    escalated_fraction: float  # the fraction asked for; escalated / total is at most this
    escalated: int
    kept: int
    total: int
    threshold: float | None  # confidence of the first kept claim; None when none is kept
    accuracy: float
    macro_f1: float
    contradicted_f1: float


def coverage_table(
    gold: Sequence[int],
    decisions: Sequence[Decision],
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
) -> list[CoverageRow]:
    """One row per fraction, in the order given.

    Claims are sorted by ``Decision.confidence`` ascending with a stable sort, so tied claims
    keep their input order. For a fraction ``f`` of ``n`` claims, the first ``floor(f * n)`` of
    that order are escalated and the rest kept (``f = 0`` keeps all: the baseline). The row's
    ``threshold`` is the confidence of the first kept claim: every escalated claim has a
    confidence at or below it, so "escalate when confidence is below ``threshold``" escalates
    exactly these claims, or fewer when claims tied at the threshold straddle the cut.

    ``gold`` holds class indices in ``CLASS_NAMES`` order (as ``metrics`` takes them); each
    fraction must lie in [0, 1).
    """
    if len(gold) != len(decisions):
        raise ValueError(f"{len(gold)} gold labels for {len(decisions)} decisions")
    for f in fractions:
        if not 0.0 <= f < 1.0:
            raise ValueError(f"escalated fraction {f} is not in [0, 1)")
    order = sorted(range(len(decisions)), key=lambda i: decisions[i].confidence)
    predicted = label_ids(decisions)
    rows: list[CoverageRow] = []
    for f in fractions:
        cut = math.floor(f * len(order) + _EPSILON)
        kept = order[cut:]
        m = metrics([gold[i] for i in kept], [predicted[i] for i in kept])
        rows.append(
            CoverageRow(
                escalated_fraction=f,
                escalated=cut,
                kept=len(kept),
                total=len(order),
                threshold=decisions[kept[0]].confidence if kept else None,
                accuracy=m.accuracy,
                macro_f1=m.macro_f1,
                contradicted_f1=m.per_class["contradicted"].f1,
            )
        )
    return rows
