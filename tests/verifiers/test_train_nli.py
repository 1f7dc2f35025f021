"""``veriproxy train-nli`` end to end on a tiny subset: data, training, export, int8
quantisation, parity, calibration, and a model directory that ``BundledNLI`` loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifiers import BundledNLI
from verifiers.confidence import load_confidence
from verifiers.eval.data import data_dir
from verifiers.nli import NLIPair

DATA = data_dir(relative_to=Path(__file__).parents[2])
REPO = Path(__file__).parents[2]

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


def _train(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "proxy", "train-nli", "--data-dir", str(DATA), *args]
    env = os.environ | {"OMP_NUM_THREADS": "1"}
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_tiny_run_writes_a_loadable_model_and_resumes(tmp_path: Path) -> None:
    out, work = tmp_path / "model", tmp_path / "work"
    args = ("--out", str(out), "--work-dir", str(work), "--max-pairs", "16")
    done = _train(*args, "--max-length", "64", "--epochs", "1", "--threads", "1")
    assert done.returncode == 0, done.stderr[-3000:]

    assert {p.name for p in out.iterdir()} == {
        "model.int8.onnx",
        "tokenizer.json",
        "nli_config.json",
        "MODEL_CARD.md",
        "confidence.json",  # P(verdict right) and review_below, fitted for this version
    }
    config = json.loads((out / "nli_config.json").read_text(encoding="utf-8"))
    assert config["labels"] == ["entailment", "neutral", "contradiction"]
    assert config["max_length"] == 64
    assert config["training"]["pairs"]["train"] == 16
    assert 0.0 <= config["training"]["parity"]["agreement"] <= 1.0
    assert (work / "general" / "checkpoint.pt").is_file()
    assert (work / "biomedical" / "checkpoint.pt").is_file()
    assert "stage one: SNLI test accuracy" in done.stderr
    assert config["training"]["pairs"]["general"] == 16
    # Stage two replays a sixth of its own size from stage one.
    assert config["training"]["pairs"]["rehearsed"] == 2
    assert set(config["training"]["snli_test_accuracy"]) == {"stage_one", "final"}
    assert config["version"] in (out / "MODEL_CARD.md").read_text(encoding="utf-8")

    nli = BundledNLI(out, threads=1)
    confidence = load_confidence(out, config["version"])
    assert confidence is not None and 0.0 < confidence.review_below <= 1.0
    (scores,) = nli.predict([NLIPair("Aspirin reduced mortality.", "Aspirin reduces mortality.")])
    assert scores.entailment + scores.neutral + scores.contradiction == pytest.approx(1.0)

    again = _train(*args, "--max-length", "64", "--threads", "1", "--resume")
    assert again.returncode == 0, again.stderr[-3000:]
    # Both stages resume from their own checkpoints, and neither trains again.
    assert again.stderr.count("resumed from step 1 of 1") == 2
    assert " loss " not in again.stderr.split("resumed from step")[1]


def test_calibrate_only_rewrites_the_rule_and_drops_stale_figures(tmp_path: Path) -> None:
    out, work = tmp_path / "model", tmp_path / "work"
    args = ("--out", str(out), "--work-dir", str(work), "--max-pairs", "16", "--threads", "1")
    assert _train(*args, "--max-length", "64").returncode == 0
    (out / "metrics.json").write_text('{"scifact": {}}', encoding="utf-8")
    before = json.loads((out / "nli_config.json").read_text(encoding="utf-8"))

    done = _train(*args, "--max-length", "64", "--calibrate-only", "--false-alarm-ceiling", "0.1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "calibrating the decision rule on" in done.stderr
    assert " loss " not in done.stderr  # nothing trained
    after = json.loads((out / "nli_config.json").read_text(encoding="utf-8"))
    assert after["sha256"] == before["sha256"]  # the same graph
    assert after["training"]["false_alarm_ceiling"] == 0.1
    assert after["training"]["settings"] == before["training"]["settings"]
    assert not (out / "metrics.json").exists()  # figures measured under other thresholds
    assert after["version"] in (out / "MODEL_CARD.md").read_text(encoding="utf-8")


def test_reviews_join_the_biomedical_stage_split_by_request(tmp_path: Path) -> None:
    """Reviewers' labels (an export of 9 reviewed sentences, 3 to a request) join the tiny run
    whole, past --max-pairs, each request's sentences on one side of the split."""
    from tests.proxy.review.exported import write_export

    reviews = tmp_path / "reviews.jsonl"
    rows = write_export(reviews, per_request=3)
    out, work = tmp_path / "model", tmp_path / "work"
    args = ("--out", str(out), "--work-dir", str(work), "--max-pairs", "16", "--threads", "1")
    done = _train(*args, "--max-length", "64", "--reviews", str(reviews))
    assert done.returncode == 0, done.stderr[-3000:]
    pairs = json.loads((out / "nli_config.json").read_text(encoding="utf-8"))["training"]["pairs"]
    reviewed = pairs["reviewed"]
    assert reviewed["train"] + reviewed["validation"] == len(rows)
    assert reviewed["train"] % 3 == 0 and reviewed["validation"] % 3 == 0
    assert pairs["train"] == 16 + reviewed["train"]
    assert "reviews" in done.stderr  # the stage-two summary counts them by source
