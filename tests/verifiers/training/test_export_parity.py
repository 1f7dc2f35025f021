"""Parity between the fp32 and int8 graphs is scored on three-way pairs only: the v2 recipe's
stage-two validation holds FactCG's binary not-entailment pairs, which have no three-way label
(the first full v2 run stopped there with an IndexError)."""

from __future__ import annotations

from collections.abc import Sequence

from verifiers.nli import NLIPair, NLIScores
from verifiers.training.examples import CONTRADICTION, ENTAILMENT, NEUTRAL, NOT_ENTAILMENT, Example
from verifiers.training.export import parity


class _ByPremise:
    """Scores each pair by a label written in its premise (a backend whose output is known)."""

    name = version = "by-premise"

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        table = {
            "entailment": NLIScores(0.9, 0.05, 0.05),
            "neutral": NLIScores(0.05, 0.9, 0.05),
            "contradiction": NLIScores(0.05, 0.05, 0.9),
        }
        return [table[p.premise.split()[0]] for p in pairs]


def _row(premise: str, label: int) -> Example:
    return Example(premise, "claim", label, "test", premise)


def test_binary_not_entailment_pairs_are_left_out_of_parity() -> None:
    rows = [
        _row("entailment one", ENTAILMENT),
        _row("neutral two", NEUTRAL),
        _row("contradiction three", CONTRADICTION),
        _row("neutral four", NOT_ENTAILMENT),  # binary: no three-way label to score
    ]
    check = parity(_ByPremise(), _ByPremise(), rows)
    assert check.pairs == 3
    assert check.agreement == 1.0 and check.macro_f1_fp32 == check.macro_f1_int8 == 1.0
    assert check.passed
