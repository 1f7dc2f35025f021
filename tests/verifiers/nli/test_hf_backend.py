from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from verifiers.nli._base import NLIError, NLIPair  # noqa: E402
from verifiers.nli.hf_backend import HFNLI, label_order  # noqa: E402
from verifiers.nli.registry import create_backend  # noqa: E402

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "aspirin",
    "reduces",
    "mortality",
    "in",
    "patients",
    "not",
    "the",
]


def tiny_model(path: Path, id2label: dict[int, str], winner: str) -> Path:
    """A randomly initialised one-layer BERT whose classifier always prefers ``winner``: only a
    backend that reads ``id2label`` reports that label."""
    (path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    config = transformers.BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=64,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.zero_()
        index = next(i for i, name in id2label.items() if name == winner)
        model.classifier.bias[index] = 5.0
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


PAIRS = [
    NLIPair("aspirin reduces mortality in patients", "aspirin reduces mortality"),
    NLIPair("the patients", "aspirin not"),
]


@pytest.mark.parametrize("winner", ["ENTAILMENT", "CONTRADICTION", "NEUTRAL"])
def test_label_order_comes_from_the_config(tmp_path: Path, winner: str) -> None:
    shuffled = {0: "NEUTRAL", 1: "CONTRADICTION", 2: "ENTAILMENT"}
    backend = HFNLI(tiny_model(tmp_path, shuffled, winner), threads=1)
    scores = backend.predict(PAIRS)
    assert len(scores) == len(PAIRS)
    for s in scores:
        assert s.label.value == winner.lower()
        assert s.entailment + s.neutral + s.contradiction == pytest.approx(1.0)


def test_two_way_models_map_not_entailment_to_neutral(tmp_path: Path) -> None:
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
