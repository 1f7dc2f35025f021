"""``veriproxy train-roles`` on the public datasets: it reproduces the shipped sentence-role
model, and never fits on a question ``veriproxy eval answers`` holds back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proxy.cli import main
from verifiers.eval.data import data_dir
from verifiers.roles import ROLES_PATH, load_roles
from verifiers.training.examples import is_answer_eval
from verifiers.training.roles import pubmedqa_sentences

DATA = data_dir(relative_to=Path(__file__).parents[3])
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


def test_train_roles_reproduces_the_shipped_model(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "roles.json"
    assert main(["train-roles", "--data-dir", str(DATA), "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads(ROLES_PATH.read_text())
    printed = capsys.readouterr().out
    assert load_roles().version in printed and "held-out PubMedQA" in printed


def test_the_fit_leaves_the_answer_questions_out() -> None:
    fitted = {s.group for s in pubmedqa_sentences(DATA)}
    held = {s.group for s in pubmedqa_sentences(DATA, held_out=True)}
    assert fitted and held and not fitted & held
    assert not any(is_answer_eval(group) for group in fitted)
