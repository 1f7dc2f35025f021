"""The bundled biomedical NLI model, run with ONNX Runtime and ``tokenizers`` only (no torch).

    nli = BundledNLI(threads=2)
    scores = nli.predict([NLIPair(premise=window, hypothesis=claim)])
    decision = decide(scores, nli.thresholds)

The model directory holds the int8 ONNX graph, ``tokenizer.json``, ``nli_config.json`` (label
order, max length, input names, calibrated thresholds, version) and ``MODEL_CARD.md``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Encoding, Tokenizer

from verifiers.nli._base import NLIError, NLIPair, NLIScores
from verifiers.nli.decide import Thresholds
from verifiers.nli.devices import onnx_providers

logger = logging.getLogger("veriproxy.nli")

MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "nli"
CONFIG_FILE = "nli_config.json"
# One pair per ONNX run. The int8 graph quantizes activations per run, so in a batch a pair's
# probabilities move (up to ~0.05) with the pairs padded beside it: a sentence verified while it
# streams and the same sentence in a whole answer could differ near a threshold. Alone, every
# pair always gets the same scores. One call's pairs score about 17% slower than in
# length-sorted batches of 32 (bench/nli.py, 2-core VNNI CPU: 106 against 128 pairs/s), yet
# verified streams/s under concurrent load rose (bench/load.py), and ONNX Runtime's arena stays
# small (66 MiB with the session, against 207 MiB after batches of 32 long pairs). A GPU, or
# the cross-request batcher, sets a larger batch.
DEFAULT_BATCH_SIZE = 1


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """``nli_config.json``: everything a runtime needs besides the graph and the tokenizer."""

    version: str
    labels: tuple[str, ...]
    max_length: int
    input_names: tuple[str, ...]
    output_name: str
    model_file: str
    tokenizer_file: str
    thresholds: Thresholds
    window_sizes: tuple[int, ...]

    @classmethod
    def load(cls, model_dir: Path) -> ModelConfig:
        try:
            raw = json.loads((model_dir / CONFIG_FILE).read_text(encoding="utf-8"))
            return cls(
                version=str(raw["version"]),
                labels=tuple(raw["labels"]),
                max_length=int(raw["max_length"]),
                input_names=tuple(raw["input_names"]),
                output_name=str(raw["output_name"]),
                model_file=str(raw["model_file"]),
                tokenizer_file=str(raw["tokenizer_file"]),
                thresholds=Thresholds.from_dict(raw["thresholds"]),
                window_sizes=tuple(raw["window_sizes"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise NLIError(f"cannot read NLI model config in {model_dir}: {exc}") from exc


def load_tokenizer(path: Path, max_length: int) -> Tokenizer:
    """Pairs truncate the premise (the window) first: the claim must stay whole."""
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length, strategy="only_first")
    return tokenizer


def tokenize(tokenizer: Tokenizer, pairs: Sequence[tuple[str, str]]) -> list[Encoding]:
    """Encodes (premise, hypothesis) pairs; falls back to longest-first truncation when a claim
    alone exceeds the budget (``only_first`` cannot fit it)."""
    try:
        return tokenizer.encode_batch(list(pairs))
    except Exception:  # tokenizers signals an unfit truncation with a bare Exception
        limit = tokenizer.truncation["max_length"] if tokenizer.truncation else 128
        tokenizer.enable_truncation(max_length=limit, strategy="longest_first")
        try:
            return tokenizer.encode_batch(list(pairs))
        finally:
            tokenizer.enable_truncation(max_length=limit, strategy="only_first")


def pad(encodings: Sequence[Encoding]) -> dict[str, npt.NDArray[np.int64]]:
    """Token ids, attention mask and token types, padded to the longest pair."""
    width = max(len(e.ids) for e in encodings)
    out = {
        name: np.zeros((len(encodings), width), dtype=np.int64)
        for name in ("input_ids", "attention_mask", "token_type_ids")
    }
    for row, e in enumerate(encodings):
        n = len(e.ids)
        out["input_ids"][row, :n] = e.ids
        out["attention_mask"][row, :n] = 1
        out["token_type_ids"][row, :n] = e.type_ids
    return out


class BundledNLI:
    """``NLIBackend`` over the shipped int8 ONNX model. Thread-safe for concurrent ``predict``
    calls (ONNX Runtime sessions are); ``threads`` sets ``intra_op_num_threads``.

    ``model_file`` swaps the graph (a name in ``model_dir`` or an absolute path), e.g. the fp32
    export for the parity check; ``device`` (``cpu``, ``cuda``, ``auto``) picks the ONNX Runtime
    execution providers (:mod:`verifiers.nli.devices`: CUDA falls back to the CPU where there
    is none), ``providers`` names them outright. The int8 graph's quantized matrix products
    are CPU kernels: on a GPU, give an fp16/fp32 export as ``model_file``."""

    name = "bundled"

    def __init__(
        self,
        model_dir: Path | str | None = None,
        *,
        threads: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
        model_file: str | None = None,
        device: str = "cpu",
        providers: Sequence[str] | None = None,
    ) -> None:
        import onnxruntime as ort

        self.model_dir = Path(model_dir) if model_dir is not None else MODEL_DIR
        self.config = ModelConfig.load(self.model_dir)
        self.version = self.config.version
        self.thresholds = self.config.thresholds
        self.batch_size = batch_size
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        graph = self.model_dir / (model_file or self.config.model_file)
        try:
            self._session: Any = ort.InferenceSession(
                str(graph),
                sess_options=options,
                providers=list(providers or onnx_providers(device)),
            )
            self._tokenizer = load_tokenizer(
                self.model_dir / self.config.tokenizer_file, self.config.max_length
            )
        except Exception as exc:  # onnxruntime raises its own non-exported exception types
            raise NLIError(f"cannot load the bundled NLI model from {graph}: {exc}") from exc
        # Where it really runs: the first provider the session took.
        self.provider: str = self._session.get_providers()[0]
        logger.info("bundled NLI model %s runs on %s", self.version, self.provider)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._order = [
            self.config.labels.index(n) for n in ("entailment", "neutral", "contradiction")
        ]

    def predict(self, pairs: Sequence[NLIPair]) -> list[NLIScores]:
        """Scores pairs in batches of similar length; results keep the input order."""
        if not pairs:
            return []
        encodings = tokenize(self._tokenizer, [(p.premise, p.hypothesis) for p in pairs])
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        probs = np.zeros((len(pairs), len(self.config.labels)), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            feeds = pad([encodings[i] for i in rows])
            feeds = {k: v for k, v in feeds.items() if k in self._inputs}
            (out,) = self._session.run([self.config.output_name], feeds)
            probs[rows] = out
        ent, neu, con = self._order
        return [
            NLIScores(entailment=float(p[ent]), neutral=float(p[neu]), contradiction=float(p[con]))
            for p in probs
        ]
