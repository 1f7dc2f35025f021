"""ONNX export, int8 dynamic quantisation and the int8-vs-fp32 parity check.

Quantisation is per-channel int8 on the MatMuls and on the word-embedding Gather (in fp32 that
matrix alone is 47 MB), while the classification head stays fp32 (its two output units carry
the whole decision) and the FFN down-projections keep fp16 weights (see ``FP16_WEIGHTS``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

from verifiers.nli._base import NLIBackend, NLIPair
from verifiers.training.evaluate import metrics
from verifiers.training.examples import CONTRADICTION, ENTAILMENT, NEUTRAL, Example
from verifiers.training.model import FactorizedNLI
from verifiers.training.quantize import unsigned_weights

INPUT_NAMES: tuple[str, ...] = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "probabilities"
OPSET = 17
# The FFN down-projections (1536 to 384) see GELU outputs with outlier activations: int8
# dynamic quantisation of those inputs flips most of the labels that change, so these MatMuls
# run in fp32 with weights stored as fp16 (+3.5 MB instead of +10.6 MB).
FP16_WEIGHTS = r"layer\.\d+/output/dense/MatMul$"


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


def _fp16_nodes(path: Path, pattern: str) -> list[str]:
    return [n.name for n in onnx.load(str(path)).graph.node if re.search(pattern, n.name)]


def _store_weights_fp16(path: Path, nodes: Sequence[str]) -> None:
    """Stores the constant weight of each named MatMul as fp16 behind a Cast to fp32: half the
    bytes of fp32 with none of int8's activation rounding."""
    model = onnx.load(str(path))
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    wanted = set(nodes)
    casts = []
    for node in graph.node:
        if node.name not in wanted:
            continue
        weight = initializers[node.input[1]]
        half = numpy_helper.from_array(
            numpy_helper.to_array(weight).astype(np.float16), f"{weight.name}_fp16"
        )
        graph.initializer.remove(weight)
        graph.initializer.append(half)
        casts.append(
            helper.make_node(
                "Cast", [half.name], [weight.name], to=TensorProto.FLOAT, name=f"{node.name}_cast"
            )
        )
    # Casts read only initializers, so putting them first keeps the graph topologically sorted.
    for cast in reversed(casts):
        graph.node.insert(0, cast)
    onnx.save(model, str(path))


def quantize(fp32: Path, int8: Path) -> dict[str, list[str]]:
    """Writes the int8 graph; returns the nodes kept in fp32 and those with fp16 weights."""
    keep = _kept_fp32(fp32)
    half = _fp16_nodes(fp32, FP16_WEIGHTS)
    quantize_dynamic(
        str(fp32),
        str(int8),
        per_channel=True,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul", "Gather"],
        nodes_to_exclude=keep + half,
    )
    _store_weights_fp16(int8, half)
    unsigned_weights(int8)  # the same integers on every CPU (verifiers/training/quantize.py)
    return {"fp32": keep, "fp16_weights": half}


@dataclass(frozen=True, slots=True)
class Parity:
    agreement: float
    macro_f1_fp32: float
    macro_f1_int8: float
    pairs: int

    @property
    def passed(self) -> bool:
        return self.agreement >= 0.97 and abs(self.macro_f1_fp32 - self.macro_f1_int8) <= 0.01


THREE_WAY = frozenset({ENTAILMENT, NEUTRAL, CONTRADICTION})


def parity(fp32: NLIBackend, int8: NLIBackend, rows: Sequence[Example]) -> Parity:
    """Window-level label agreement and macro-F1 of both graphs on the three-way validation
    pairs (a binary set's not-entailment pairs have no three-way label to score)."""
    rows = [r for r in rows if r.label in THREE_WAY]
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
