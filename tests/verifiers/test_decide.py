from __future__ import annotations

import pytest

from verifiers import NLILabel
from verifiers.nli import NLIScores
from verifiers.nli.decide import Decision, Thresholds, decide

ENT = NLIScores(entailment=0.9, neutral=0.05, contradiction=0.05)
CON = NLIScores(entailment=0.1, neutral=0.1, contradiction=0.8)
NEU = NLIScores(entailment=0.05, neutral=0.9, contradiction=0.05)
LEAN_NEU = NLIScores(entailment=0.3, neutral=0.6, contradiction=0.1)


def test_no_windows_is_neutral_without_a_window() -> None:
    assert decide([]) == Decision(NLILabel.NEUTRAL, 1.0, None)


def test_any_confident_contradiction_wins_over_support() -> None:
    result = decide([ENT, NEU, CON])
    assert result.label is NLILabel.CONTRADICTION
    assert result.window == 2
    assert result.confidence == pytest.approx(0.8)


def test_entailment_when_nothing_contradicts() -> None:
    result = decide([NEU, ENT, NEU])
    assert (result.label, result.window) == (NLILabel.ENTAILMENT, 1)


def test_neutral_points_at_the_most_relevant_window() -> None:
    result = decide([NEU, LEAN_NEU, NEU])
    assert result.label is NLILabel.NEUTRAL
    assert result.window == 1
    assert result.confidence == pytest.approx(0.6)


def test_strongest_of_several_contradictions_decides() -> None:
    weaker = NLIScores(entailment=0.2, neutral=0.2, contradiction=0.6)
    assert decide([weaker, CON]).window == 1


def test_thresholds_gate_each_label() -> None:
    strict = Thresholds(contradiction=0.85, entailment=0.95)
    assert decide([CON], strict).label is NLILabel.NEUTRAL
    assert decide([ENT], strict).label is NLILabel.NEUTRAL
    loose = Thresholds(contradiction=0.5, entailment=0.25)
    assert decide([LEAN_NEU], loose).label is NLILabel.ENTAILMENT


def test_contradiction_must_outweigh_entailment_in_its_window() -> None:
    torn = NLIScores(entailment=0.45, neutral=0.1, contradiction=0.45)
    low = Thresholds(contradiction=0.4, entailment=0.4)
    assert decide([torn], low).label is NLILabel.ENTAILMENT


MOST_RELEVANT = Thresholds(rule="most_relevant", relevance=0.8, support=0.4)


def test_most_relevant_window_decides_even_against_a_weaker_contradiction() -> None:
    weaker = NLIScores(entailment=0.1, neutral=0.3, contradiction=0.6)
    result = decide([weaker, ENT], MOST_RELEVANT)
    assert (result.label, result.window) == (NLILabel.ENTAILMENT, 1)
    assert result.confidence == pytest.approx(0.9)
    # The OR-join lets the weaker window decide the same scores.
    assert decide([weaker, ENT], Thresholds(contradiction=0.5)).label is NLILabel.CONTRADICTION


def test_most_relevant_stance_share_splits_support_from_contradiction() -> None:
    leaning = NLIScores(entailment=0.35, neutral=0.1, contradiction=0.55)  # share 0.39
    assert decide([NEU, leaning], MOST_RELEVANT).label is NLILabel.CONTRADICTION
    even = NLIScores(entailment=0.45, neutral=0.1, contradiction=0.45)  # share 0.5
    assert decide([even], MOST_RELEVANT).label is NLILabel.ENTAILMENT


def test_most_relevant_between_refute_and_support_is_neutral() -> None:
    banded = Thresholds(rule="most_relevant", relevance=0.5, support=0.5, refute=0.2)
    leaning = NLIScores(entailment=0.35, neutral=0.1, contradiction=0.55)  # share 0.39
    result = decide([NEU, leaning], banded)
    # Relevant but ambivalent: not refuted, with the low confidence the judge cascade reads.
    assert (result.label, result.window) == (NLILabel.NEUTRAL, 1)
    assert result.confidence == pytest.approx(0.1)
    firm = NLIScores(entailment=0.1, neutral=0.1, contradiction=0.8)  # share 0.11
    assert decide([NEU, firm], banded).label is NLILabel.CONTRADICTION
    assert decide([ENT], banded).label is NLILabel.ENTAILMENT


def test_refute_may_not_exceed_support() -> None:
    with pytest.raises(ValueError, match="refute threshold"):
        Thresholds(rule="most_relevant", support=0.4, refute=0.6)


def test_most_relevant_below_the_relevance_threshold_is_neutral() -> None:
    result = decide([NEU, LEAN_NEU], MOST_RELEVANT)
    assert (result.label, result.window) == (NLILabel.NEUTRAL, 1)
    assert result.confidence == pytest.approx(0.6)


def test_unknown_rule_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown decision rule"):
        Thresholds(rule="majority")  # type: ignore[arg-type]


def test_learned_rule_reads_features_of_all_windows() -> None:
    from verifiers.nli.decide import FEATURES, Aggregator, claim_features

    assert len(claim_features([ENT, NEU])) == len(FEATURES)
    # A hand-set aggregator that follows max entailment vs max contradiction.
    n = len(FEATURES)
    ent_row = [0.0] * n
    con_row = [0.0] * n
    ent_row[FEATURES.index("max_entailment")] = 4.0
    con_row[FEATURES.index("max_contradiction")] = 4.0
    aggregator = Aggregator(
        (0.0,) * n, (1.0,) * n, (tuple(ent_row), (0.0,) * n, tuple(con_row)), (0.0, 1.0, 0.0)
    )
    rule = Thresholds(rule="learned", aggregator=aggregator)
    assert decide([NEU, ENT], rule).label is NLILabel.ENTAILMENT
    assert decide([NEU, CON], rule).label is NLILabel.CONTRADICTION
    assert decide([NEU, NEU], rule).label is NLILabel.NEUTRAL
    assert decide([NEU, ENT], rule).window == 1


def test_learned_rule_round_trips_through_the_model_config() -> None:
    from dataclasses import asdict

    from verifiers.nli.decide import FEATURES, Aggregator

    n = len(FEATURES)
    aggregator = Aggregator(
        (0.1,) * n, (2.0,) * n, ((1.0,) * n, (0.0,) * n, (-1.0,) * n), (0.0, 0.5, 0.0)
    )
    rule = Thresholds(rule="learned", aggregator=aggregator)
    assert Thresholds.from_dict(asdict(rule)) == rule
    with pytest.raises(ValueError, match="aggregator"):
        Thresholds(rule="learned")
