from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from verifiers.nli import NLIError, NLIPair
from verifiers.nli.hf_backend import HFNLI, label_order
from verifiers.nli.registry import create_backend

TinyModel = Callable[..., Path]  # the tiny_model fixture (tests/verifiers/conftest.py)

PAIRS = [
    NLIPair("aspirin reduces mortality in patients", "aspirin reduces mortality"),
    NLIPair("the patients", "aspirin not"),
]


@pytest.mark.parametrize("winner", ["ENTAILMENT", "CONTRADICTION", "NEUTRAL"])
def test_label_order_comes_from_the_config(
    tmp_path: Path, winner: str, tiny_model: TinyModel
) -> None:
    shuffled = {0: "NEUTRAL", 1: "CONTRADICTION", 2: "ENTAILMENT"}
    backend = HFNLI(tiny_model(tmp_path, shuffled, winner), threads=1)
    scores = backend.predict(PAIRS)
    assert len(scores) == len(PAIRS)
    for s in scores:
        assert s.label.value == winner.lower()
        assert s.entailment + s.neutral + s.contradiction == pytest.approx(1.0)


def test_two_way_models_map_not_entailment_to_neutral(
    tmp_path: Path, tiny_model: TinyModel
) -> None:
    backend = create_backend(
        "hf",
        model=tiny_model(tmp_path, {0: "not_entailment", 1: "entailment"}, "not_entailment"),
        threads=1,
        batch_size=1,
    )
    [score, _] = backend.predict(PAIRS)
    assert score.contradiction == 0.0 and score.neutral > 0.9


def test_unknown_labels_are_refused() -> None:
    with pytest.raises(NLIError, match="unknown NLI label"):
        label_order({0: "LABEL_0", 1: "LABEL_1"})


def test_missing_model_is_an_nli_error(tmp_path: Path) -> None:
    with pytest.raises(NLIError):
        HFNLI(tmp_path / "absent")
