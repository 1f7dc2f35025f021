"""``coverage_table``: metrics of the claims kept when the least confident are escalated."""

from __future__ import annotations

import pytest

from verifiers import NLILabel
from verifiers.nli.decide import Decision
from verifiers.training.coverage import coverage_table

S, N, C = 0, 1, 2  # gold class indices, CLASS_NAMES order
_LABEL = {S: NLILabel.ENTAILMENT, N: NLILabel.NEUTRAL, C: NLILabel.CONTRADICTION}

# (gold, predicted, confidence) in input order. The four wrong claims (0, 3, 5, 7) are the four
# least confident; claims 7 (wrong) and 8 (right) tie at 0.5, and 7 comes first in the input.
CLAIMS = [
    (S, C, 0.30),
    (S, S, 0.90),
    (C, C, 0.80),
    (N, S, 0.20),
    (N, N, 0.60),
    (C, N, 0.10),
    (S, S, 0.70),
    (C, S, 0.50),
    (N, N, 0.50),
    (S, S, 0.95),
]
GOLD = [g for g, _, _ in CLAIMS]
DECISIONS = [Decision(_LABEL[p], confidence, 0) for _, p, confidence in CLAIMS]
FRACTIONS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)


def test_accuracy_rises_as_the_wrong_least_confident_claims_are_escalated() -> None:
    rows = coverage_table(GOLD, DECISIONS, FRACTIONS)
    assert [r.escalated_fraction for r in rows] == list(FRACTIONS)
    assert [r.escalated for r in rows] == [0, 1, 2, 3, 4, 5]
    assert [r.kept for r in rows] == [10, 9, 8, 7, 6, 5]
    assert {r.total for r in rows} == {10}
    assert [r.threshold for r in rows] == [0.1, 0.2, 0.3, 0.5, 0.5, 0.6]
    assert [r.accuracy for r in rows] == pytest.approx([6 / 10, 6 / 9, 6 / 8, 6 / 7, 1.0, 1.0])
    # The baseline, by hand: F1 supported 2/3, not enough evidence 2/3, contradicted 2/5.
    assert rows[0].macro_f1 == pytest.approx(26 / 45)
    assert rows[0].contradicted_f1 == pytest.approx(0.4)
    assert rows[4].macro_f1 == rows[4].contradicted_f1 == 1.0


def test_ties_keep_input_order_and_the_threshold_is_the_first_kept_confidence() -> None:
    rows = coverage_table(GOLD, DECISIONS, FRACTIONS)
    # At 40% the stable sort escalates claim 7 (wrong) and keeps claim 8 (right), both 0.5.
    assert rows[4].accuracy == 1.0
    swapped = [*DECISIONS[:7], DECISIONS[8], DECISIONS[7], DECISIONS[9]]
    swapped_gold = [*GOLD[:7], GOLD[8], GOLD[7], GOLD[9]]
    assert coverage_table(swapped_gold, swapped, (0.4,))[0].accuracy == pytest.approx(5 / 6)
    # "Escalate when confidence is below the threshold" escalates each row's claims, except
    # where a tie straddles the cut (40%: the rule escalates three, the row four).
    below = [sum(d.confidence < (r.threshold or 0.0) for d in DECISIONS) for r in rows]
    assert below == [0, 1, 2, 3, 3, 5]


def test_cut_is_floor_of_fraction_times_claims() -> None:
    decisions = [Decision(NLILabel.NEUTRAL, i / 100, 0) for i in range(100)]
    # 0.29 * 100 is 28.999999999999996 in floating point: still 29 claims.
    (row,) = coverage_table([N] * 100, decisions, (0.29,))
    assert (row.escalated, row.kept, row.threshold) == (29, 71, 0.29)
    small = coverage_table(GOLD[:5], DECISIONS[:5])
    assert [r.escalated for r in small] == [0, 0, 1, 1, 2]


def test_no_claims_keeps_nothing() -> None:
    (row,) = coverage_table([], [], (0.5,))
    assert (row.escalated, row.kept, row.threshold, row.accuracy) == (0, 0, None, 0.0)


@pytest.mark.parametrize("fraction", [-0.1, 1.0])
def test_fraction_outside_zero_to_one_is_refused(fraction: float) -> None:
    with pytest.raises(ValueError, match="not in"):
        coverage_table(GOLD, DECISIONS, (fraction,))


def test_gold_and_decisions_must_pair_up() -> None:
    with pytest.raises(ValueError, match="9 gold labels for 10 decisions"):
        coverage_table(GOLD[:9], DECISIONS)
