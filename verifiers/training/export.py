"""ONNX export, int8 dynamic quantisation and the int8-vs-fp32 parity check.

Quantisation is per-channel int8 on every MatMul and on the word-embedding Gather (in fp32
that matrix alone is 47 MB), while the classification head stays fp32: its two output units
carry the whole decision, and per-tensor rounding there flips labels.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import onnx
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic

from verifiers.nli._base import NLIBackend, NLIPair
from verifiers.training.evaluate import metrics
from verifiers.training.examples import Example
from verifiers.training.model import FactorizedNLI

INPUT_NAMES: tuple[str, ...] = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "probabilities"
OPSET = 17


def export_onnx(model: FactorizedNLI, path: Path) -> None:
    """fp32 graph with dynamic batch and sequence axes."""
    model.eval()
    dummy = tuple(torch.ones((2, 16), dtype=torch.long) for _ in INPUT_NAMES)
    axes = {name: {0: "batch", 1: "sequence"} for name in INPUT_NAMES}
    axes[OUTPUT_NAME] = {0: "batch"}
    # The tracer warns about shape-dependent Python branches in transformers' masking code; they
    # are constant for an encoder with a full attention mask, and parity() measures the result.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.jit.TracerWarning)  # type: ignore[attr-defined]
        warnings.simplefilter("ignore", UserWarning)
        torch.onnx.export(
            model,
            dummy,
            str(path),
            input_names=list(INPUT_NAMES),
            output_names=[OUTPUT_NAME],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )


def _kept_fp32(path: Path) -> list[str]:
    """Nodes to leave in fp32: the head (last MatMul/Gemm) and the small position and
    token-type embedding Gathers (tiny tables; quantising them saves nothing)."""
    graph = onnx.load(str(path)).graph
    initializer_shapes = {i.name: tuple(i.dims) for i in graph.initializer}
    matmuls = [n for n in graph.node if n.op_type in {"MatMul", "Gemm"}]
    keep = [matmuls[-1].name]
    for node in graph.node:
        if node.op_type == "Gather":
            shape = initializer_shapes.get(node.input[0])
            if shape is not None and shape[0] < 10_000:
                keep.append(node.name)
    return keep


def quantize(fp32: Path, int8: Path) -> list[str]:
    """Writes the int8 graph; returns the names of the nodes kept in fp32."""
    keep = _kept_fp32(fp32)
    quantize_dynamic(
        str(fp32),
        str(int8),
        per_channel=True,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul", "Gather"],
        nodes_to_exclude=keep,
    )
    return keep


@dataclass(frozen=True, slots=True)
class Parity:
    agreement: float
    macro_f1_fp32: float
    macro_f1_int8: float
    pairs: int

    @property
    def passed(self) -> bool:
        return self.agreement >= 0.97 and abs(self.macro_f1_fp32 - self.macro_f1_int8) <= 0.01


def parity(fp32: NLIBackend, int8: NLIBackend, rows: Sequence[Example]) -> Parity:
    """Window-level label agreement and macro-F1 of both graphs on validation pairs."""
    pairs = [NLIPair(r.premise, r.hypothesis) for r in rows]
    gold = [r.label for r in rows]
    a = [_label_id(s.label.value) for s in fp32.predict(pairs)]
    b = [_label_id(s.label.value) for s in int8.predict(pairs)]
    return Parity(
        agreement=sum(x == y for x, y in zip(a, b, strict=True)) / max(len(rows), 1),
        macro_f1_fp32=metrics(gold, a).macro_f1,
        macro_f1_int8=metrics(gold, b).macro_f1,
        pairs=len(rows),
    )


def _label_id(name: str) -> int:
    return ("entailment", "neutral", "contradiction").index(name)
