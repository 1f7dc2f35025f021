"""Int8 graphs compute the same integers on every CPU: weights stored as uint8 + 128 take ONNX
Runtime's exact U8U8 kernels (its U8S8 kernels saturate on x86 CPUs without VNNI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from verifiers.training.quantize import unsigned_weights

MODELS = Path(__file__).parents[3] / "verifiers" / "models"
K, N = 384, 16


def matmul_graph(path: Path, weights: np.ndarray) -> Path:
    node = helper.make_node("MatMulInteger", ["A", "W", "a_zero", "w_zero"], ["Y"])
    graph = helper.make_graph(
        [node],
        "matmul",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [None, K])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, [None, N])],
        [
            numpy_helper.from_array(weights, "W"),
            numpy_helper.from_array(np.array(0, np.uint8), "a_zero"),
            numpy_helper.from_array(np.zeros(N, np.int8), "w_zero"),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_unsigned_weights_give_the_exact_integer_product(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    weights = rng.integers(-127, 128, size=(K, N)).astype(np.int8)
    weights[:, 0] = 127  # the column a saturating kernel gets most wrong
    activations = rng.integers(200, 256, size=(4, K)).astype(np.uint8)
    path = matmul_graph(tmp_path / "m.onnx", weights)
    assert unsigned_weights(path) == 1
    assert unsigned_weights(path) == 0  # already unsigned: nothing to do
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    [out] = session.run(None, {"A": activations})
    exact = activations.astype(np.int64) @ weights.astype(np.int64)
    assert np.array_equal(out, exact)


@pytest.mark.parametrize("graph", ["nli/model.int8.onnx", "embed/encoder.onnx"])
def test_shipped_models_store_their_weights_unsigned(graph: str) -> None:
    model = onnx.load(str(MODELS / graph))
    initializers = {i.name: i for i in model.graph.initializer}
    weights = [initializers[n.input[1]] for n in model.graph.node if n.op_type == "MatMulInteger"]
    assert weights and all(w.data_type == TensorProto.UINT8 for w in weights)
