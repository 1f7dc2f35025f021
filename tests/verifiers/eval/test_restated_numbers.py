"""``eval numbers``: values of real abstracts restated as answers restate them, through the
numbers check (PubMedQA 23831910 and 14599616, MIT)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from proxy.cli import eval_numbers
from verifiers.eval.restated_numbers import evaluate, restatements

ENTEROSCOPY = (
    "The mean time per antegrade DBE was 107.4\u00b130.0 minutes with a distance of "
    "318.4\u00b1152.9 cm reached past the pylorus."
)
CONFIRMED = "Findings were endoscopically confirmed in 32 cases (74.4%) of 1,099 patients."
RATIO = "Death was reduced (hazard ratio, 0.62; 95% CI, 0.49 to 0.77)."
FIXTURES = Path(__file__).parents[2] / "fixtures" / "answers" / "pubmedqa" / "ori_pqal.json"


def test_each_exact_value_is_restated_in_the_shapes_that_fit_it() -> None:
    made = {(r.shape, r.claim, r.changed) for r in restatements(CONFIRMED)}
    assert made == {
        ("about", "The value was about 75%.", "The value was about 150%."),
        ("about", "The value was about 1,100 patients.", "The value was about 2,200 patients."),
        ("fraction", "About three quarters of them did.", None),
        ("more_than", "The value was more than 1,000 patients.",
         "The value was more than 2,000 patients."),
        ("people", "There were 1,099 participants.", "There were 2,198 participants."),
        ("words", "The value was thirty-two cases.", "The value was sixty-four cases."),
    }  # fmt: skip
    # The check reads no centimetres: a value it cannot read is not restated.
    made = {(r.shape, r.claim) for r in restatements(ENTEROSCOPY)}
    assert made == {("mean", "The mean was 107.4 minutes.")}


def test_a_ratio_is_restated_as_the_change_it_names() -> None:
    made = {(r.shape, r.claim, r.changed) for r in restatements(RATIO)}
    assert made == {("ratio", "It gave a 38% lower risk.", "It gave a 76% lower risk.")}


def test_restatements_pass_and_doubled_values_are_caught() -> None:
    figures = evaluate([CONFIRMED, ENTEROSCOPY, RATIO, CONFIRMED])  # a sentence counts once
    assert figures["about"].restated == 2 and figures["mean"].restated == 1
    for shape, got in figures.items():
        assert got.passed == got.restated and got.caught == got.changed, (shape, got.missed)


def test_the_command_prints_each_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = json.loads(FIXTURES.read_text(encoding="utf-8"))  # held-out PMIDs, our sentences
    for record in records.values():
        record["CONTEXTS"] = [CONFIRMED, ENTEROSCOPY]
    (tmp_path / "pubmedqa").mkdir()
    (tmp_path / "pubmedqa" / "ori_pqal.json").write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "bioasq").mkdir()
    parser = argparse.ArgumentParser()
    eval_numbers.register(parser.add_subparsers())
    args = parser.parse_args(["numbers", "--data-dir", str(tmp_path), "--json"])
    assert args.func(args) == 0
    shapes = json.loads(capsys.readouterr().out)["shapes"]
    assert shapes["about"] == {
        "restated": 2, "passed_rate": 1.0, "changed": 2, "caught_rate": 1.0, "missed": []
    }  # fmt: skip
    assert shapes["mean"]["restated"] == 1


def test_a_value_grouped_by_spaces_is_restated_whole() -> None:
    # PubMedQA 15943725 (MIT) groups thousands by a space.
    sentence = "Measurements were made on 10 931 patients treated at a teaching hospital."
    made = {(r.shape, r.claim) for r in restatements(sentence)}
    assert ("more_than", "The value was more than 10,000 patients.") in made
    assert all("931 patients" not in claim for _, claim in made)
