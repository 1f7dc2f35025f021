"""``veriproxy train-nli`` end to end on a tiny subset: data, training, export, int8
quantisation, parity, calibration, and a model directory that ``BundledNLI`` loads.

One tiny run (with reviewers' labels) serves every test of the module; the tests that write
(``--resume``, ``--calibrate-only``) work on copies of its directories. It trains in fp32, the
arithmetic every CPU does natively: bf16 autocast is emulated on CPUs without AVX512-BF16 (most
CI machines), where it makes the run 1.7 times as long; a bf16 step has its own test
(tests/verifiers/training/test_train.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from verifiers import BundledNLI
from verifiers.confidence import load_confidence
from verifiers.eval.data import data_dir
from verifiers.nli import NLIPair

DATA = data_dir(relative_to=Path(__file__).parents[2])
REPO = Path(__file__).parents[2]
PER_REQUEST = 3  # reviewed sentences to a request in the export

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}")


def _train(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "proxy", "train-nli", "--data-dir", str(DATA), *args]
    env = os.environ | {"OMP_NUM_THREADS": "1"}
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def _settings(reviews: Path) -> tuple[str, ...]:
    return (
        "--max-pairs",
        "16",
        "--max-length",
        "64",
        "--threads",
        "1",
        "--precision",
        "fp32",
        "--reviews",
        str(reviews),
    )


@dataclass(frozen=True, slots=True)
class TinyRun:
    out: Path
    work: Path
    settings: tuple[str, ...]
    stderr: str
    reviewed_rows: int

    def config(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out / "nli_config.json").read_text())
        return data


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> TinyRun:
    """16 pairs a stage plus an export of 9 reviewed sentences, 3 to a request; 1 epoch."""
    from tests.proxy.review.exported import write_export

    root = tmp_path_factory.mktemp("train-nli")
    reviews = root / "reviews.jsonl"
    rows = write_export(reviews, per_request=PER_REQUEST)
    out, work = root / "model", root / "work"
    settings = _settings(reviews)
    done = _train("--out", str(out), "--work-dir", str(work), *settings, "--epochs", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    return TinyRun(out, work, settings, done.stderr, len(rows))


def test_tiny_run_writes_a_loadable_model(tiny_run: TinyRun) -> None:
    out, work = tiny_run.out, tiny_run.work
    assert {p.name for p in out.iterdir()} == {
        "model.int8.onnx",
        "tokenizer.json",
        "nli_config.json",
        "MODEL_CARD.md",
        "confidence.json",  # P(verdict right) and review_below, fitted for this version
    }
    config = tiny_run.config()
    assert config["labels"] == ["entailment", "neutral", "contradiction"]
    assert config["max_length"] == 64
    assert config["training"]["settings"]["precision"] == "fp32"
    assert 0.0 <= config["training"]["parity"]["agreement"] <= 1.0
    assert (work / "general" / "checkpoint.pt").is_file()
    assert (work / "biomedical" / "checkpoint.pt").is_file()
    assert "stage one: SNLI test accuracy" in tiny_run.stderr
    pairs = config["training"]["pairs"]
    assert pairs["general"] == 16
    # Stage two replays a sixth of its own size from stage one.
    assert pairs["rehearsed"] == pairs["train"] // 6 > 0
    assert set(config["training"]["snli_test_accuracy"]) == {"stage_one", "final"}
    assert config["version"] in (out / "MODEL_CARD.md").read_text(encoding="utf-8")

    nli = BundledNLI(out, threads=1)
    confidence = load_confidence(out, config["version"])
    assert confidence is not None and 0.0 < confidence.review_below <= 1.0
    (scores,) = nli.predict([NLIPair("Aspirin reduced mortality.", "Aspirin reduces mortality.")])
    assert scores.entailment + scores.neutral + scores.contradiction == pytest.approx(1.0)


def test_a_finished_run_resumes_without_training_again(tiny_run: TinyRun, tmp_path: Path) -> None:
    """A finished stage two is loaded, not trained, and needs nothing of stage one but its
    recorded SNLI accuracy: stages trained on another machine (a GPU) finish here."""
    work = tmp_path / "work"
    shutil.copytree(tiny_run.work, work)
    for left_behind in ("model.pt", "checkpoint.pt"):
        (work / "general" / left_behind).unlink()
    out = tmp_path / "model"
    again = _train("--out", str(out), "--work-dir", str(work), *tiny_run.settings, "--resume")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "biomedical: finished earlier, loaded" in again.stderr
    assert "stage one data" not in again.stderr and " loss " not in again.stderr
    recorded = tiny_run.config()["training"]["snli_test_accuracy"]
    assert (
        json.loads((out / "nli_config.json").read_text())["training"]["snli_test_accuracy"]
        == recorded
    )
    assert tiny_run.config()["training"]["settings"]["trained_on"] == "cpu"


def test_resume_under_other_settings_trains_again(tiny_run: TinyRun, tmp_path: Path) -> None:
    """Stage two's finished marker records its learning settings: a resumed run with another
    number of epochs picks up its checkpoint and trains on."""
    work = tmp_path / "work"
    shutil.copytree(tiny_run.work, work)
    out = tmp_path / "model"
    again = _train(
        "--out", str(out), "--work-dir", str(work), *tiny_run.settings, "--resume", "--epochs", "2"
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert "biomedical: finished earlier" not in again.stderr
    assert "resumed from step 1 of 2" in again.stderr and " loss " in again.stderr


def test_calibrate_only_rewrites_the_rule_and_drops_stale_figures(
    tiny_run: TinyRun, tmp_path: Path
) -> None:
    out = tmp_path / "model"
    shutil.copytree(tiny_run.out, out)
    (out / "metrics.json").write_text('{"scifact": {}}', encoding="utf-8")
    before = json.loads((out / "nli_config.json").read_text(encoding="utf-8"))

    done = _train(
        "--out",
        str(out),
        "--work-dir",
        str(tmp_path / "work"),
        *tiny_run.settings,
        "--calibrate-only",
        "--false-alarm-ceiling",
        "0.1",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "calibrating the decision rule on" in done.stderr
    assert " loss " not in done.stderr  # nothing trained
    after = json.loads((out / "nli_config.json").read_text(encoding="utf-8"))
    assert after["sha256"] == before["sha256"]  # the same graph
    assert after["training"]["false_alarm_ceiling"] == 0.1
    assert after["training"]["settings"] == before["training"]["settings"]
    assert not (out / "metrics.json").exists()  # figures measured under other thresholds
    assert after["version"] in (out / "MODEL_CARD.md").read_text(encoding="utf-8")


def test_confidence_only_refits_the_confidence_model_and_its_card_section(
    tiny_run: TinyRun, tmp_path: Path
) -> None:
    out = tmp_path / "model"
    shutil.copytree(tiny_run.out, out)
    (out / "confidence.json").unlink()
    card = out / "MODEL_CARD.md"
    card.write_text("stale", encoding="utf-8")

    done = _train("--out", str(out), "--confidence-only", "--max-answers", "2", "--threads", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    confidence = load_confidence(out, tiny_run.config()["version"])
    assert confidence is not None
    assert confidence.quoted_heads and confidence.fit["quoted"]["claims"] > 0
    text = card.read_text(encoding="utf-8")
    assert "then the centred isotonic map" in text
    assert f"default `review_below` {confidence.review_below}" in text
    assert "judged against their quote: heads of their own" in text


def test_quoted_heads_only_keeps_the_rest_of_the_confidence_model(
    tiny_run: TinyRun, tmp_path: Path
) -> None:
    out = tmp_path / "model"
    shutil.copytree(tiny_run.out, out)
    version = tiny_run.config()["version"]
    before = load_confidence(out, version)
    assert before is not None
    args = ("--out", str(out), "--confidence-only", "--quoted-heads-only", "--max-answers", "2")

    done = _train(*args, "--threads", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    after = load_confidence(out, version)
    assert after is not None and after.quoted_heads
    assert (after.heads, after.review_below) == (before.heads, before.review_below)
    assert after.fit == {**before.fit, "quoted": after.fit["quoted"]}

    (out / "confidence.json").unlink()  # nothing to keep: refused, nothing written
    refused = _train(*args, "--threads", "1")
    assert refused.returncode == 2 and "fit it whole first" in refused.stderr
    assert not (out / "confidence.json").exists()


def test_reviews_join_the_biomedical_stage_split_by_request(tiny_run: TinyRun) -> None:
    """Reviewers' labels join the tiny run whole, past --max-pairs, each request's sentences on
    one side of the split."""
    pairs = tiny_run.config()["training"]["pairs"]
    reviewed = pairs["reviewed"]
    assert reviewed["train"] + reviewed["validation"] == tiny_run.reviewed_rows
    assert reviewed["train"] % PER_REQUEST == 0 and reviewed["validation"] % PER_REQUEST == 0
    assert pairs["train"] == 16 + reviewed["train"]
    assert "reviews" in tiny_run.stderr  # the stage-two summary counts them by source
