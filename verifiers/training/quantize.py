"""Int8 graphs that compute the same integers on every CPU.

``quantize_dynamic`` stores weights as int8 and activations as uint8, and ONNX Runtime's U8S8
matrix kernels on x86 CPUs without VNNI (AVX2, AVX-512 without VNNI; measured on an AMD EPYC
here) add pairs of uint8 x int8 products in saturating 16-bit arithmetic: a matrix product
there can be off by millions, and the bundled model's verdicts then depend on the CPU it runs
on (a demo sentence read ``supported`` on the machine it was tested on and ``contradicted``
here). Stored as uint8 with zero point 128 -- the same integers shifted, nothing rounded --
the weights take the U8U8 kernels, which widen to 16 bits before multiplying and are exact on
every CPU. The price: about 9% more time for the NLI model on this AVX2 machine.

    python -m verifiers.training.quantize MODEL.onnx [MODEL.onnx ...]   # rewrites in place
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

SHIFT = 128  # int8 [-128, 127] + 128 = uint8 [0, 255]


def unsigned_weights(path: Path) -> int:
    """Rewrite the int8 weights (and their zero points) of every ``MatMulInteger`` in the
    graph at ``path`` as uint8; returns how many were rewritten (0: nothing to do)."""
    model = onnx.load(str(path))
    initializers = {i.name: i for i in model.graph.initializer}
    rewritten = 0
    for node in model.graph.node:
        if node.op_type != "MatMulInteger" or len(node.input) < 4:
            continue
        weight, zero_point = initializers.get(node.input[1]), initializers.get(node.input[3])
        if weight is None or zero_point is None or weight.data_type != TensorProto.INT8:
            continue
        for tensor in (weight, zero_point):
            shifted = numpy_helper.to_array(tensor).astype(np.int16) + SHIFT
            tensor.CopyFrom(numpy_helper.from_array(shifted.astype(np.uint8), tensor.name))
        rewritten += 1
    if rewritten:
        onnx.save(model, str(path))
    return rewritten


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path)
    for path in parser.parse_args().models:
        print(f"{path}: {unsigned_weights(path)} MatMulInteger weights now uint8", flush=True)


if __name__ == "__main__":
    main()
