"""Any Hugging Face sequence-classification NLI model, through transformers and torch.

The label order differs between models (MNLI heads put contradiction first, others entailment
first), so it is read from the model's ``config.id2label`` rather than assumed. Two-way models
(entailment / not_entailment) map "not entailment" to neutral.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from verifiers.nli._base import NLIError, NLIPair, NLIScores
from verifiers.nli.devices import torch_device

_LABEL_NAMES: Mapping[str, str] = {
    "entailment": "entailment",
    "entails": "entailment",
    "entail": "entailment",
    "support": "entailment",
    "supports": "entailment",
    "supported": "entailment",
    "neutral": "neutral",
    "not_entailment": "neutral",
    "non_entailment": "neutral",
    "nei": "neutral",
    "not_enough_info": "neutral",
    "contradiction": "contradiction",
    "contradicts": "contradiction",
    "contradict": "contradiction",
    "refutes": "contradiction",
    "refuted": "contradiction",
}
DEFAULT_BATCH_SIZE = 16
DEFAULT_MAX_LENGTH = 256


def label_order(id2label: Mapping[int, str]) -> dict[int, str]:
    """Map each output index to entailment / neutral / contradiction, or fail clearly."""
    order: dict[int, str] = {}
    for index, name in id2label.items():
        key = name.strip().lower().replace(" ", "_").replace("-", "_")
        if key not in _LABEL_NAMES:
            raise NLIError(f"unknown NLI label {name!r}; expected entailment/neutral/contradiction")
        order[int(index)] = _LABEL_NAMES[key]
    if "entailment" not in order.values():
        raise NLIError("the model has no entailment label")
    return order


class HFNLI:
    """NLI with a transformers ``AutoModelForSequenceClassification``. ``device``: ``cpu``,
    ``cuda`` or ``auto`` (:mod:`verifiers.nli.devices`; CUDA falls back to the CPU where torch
    sees none); ``provider`` says where it runs."""

    name = "hf"

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "cpu",
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: int = DEFAULT_MAX_LENGTH,
        threads: int | None = None,
    ) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if threads is not None:
            torch.set_num_threads(threads)
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(model))
            self._model = AutoModelForSequenceClassification.from_pretrained(str(model))
        except (OSError, ValueError) as exc:
            raise NLIError(f"cannot load Hugging Face model {model}: {exc}") from exc
        self._device = torch_device(device)
        self._model.to(self._device).eval()
        self._order = label_order(self._model.config.id2label)
        self.provider = self._device
        self._batch_size = batch_size
        # Never past the model's position table (small models often have fewer than 256).
        positions = getattr(self._model.config, "max_position_embeddings", max_length)
        self._max_length = min(max_length, positions)
        self._lock = threading.Lock()
        self.version = f"hf:{Path(str(model)).name}"

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        import torch

        scores: list[NLIScores] = []
        with self._lock, torch.inference_mode():
            for start in range(0, len(pairs), self._batch_size):
                batch = pairs[start : start + self._batch_size]
                inputs = self._tokenizer(
                    [p.premise for p in batch],
                    [p.hypothesis for p in batch],
                    truncation=True,
                    max_length=self._max_length,
                    padding=True,
                    return_tensors="pt",
                ).to(self._device)
                probs = torch.softmax(self._model(**inputs).logits.float(), dim=-1).cpu()
                scores.extend(self._scores(row) for row in probs.tolist())
        return scores

    def _scores(self, row: list[float]) -> NLIScores:
        total = {"entailment": 0.0, "neutral": 0.0, "contradiction": 0.0}
        for index, prob in enumerate(row):
            total[self._order[index]] += prob
        return NLIScores(total["entailment"], total["neutral"], total["contradiction"])
