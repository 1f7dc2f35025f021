"""Where an NLI backend runs: ``device`` in its config is ``cpu`` (the default), ``cuda`` or
``auto`` (CUDA where there is one). A CUDA device this machine cannot give -- no GPU, or an
onnxruntime / torch build without CUDA -- falls back to the CPU with a warning, so one
configuration serves a GPU node and a laptop alike; the backend then says where it runs."""

from __future__ import annotations

import logging

from verifiers.errors import NLIError

logger = logging.getLogger("veriproxy.nli")

DEVICES = ("cpu", "cuda", "auto")
CPU_PROVIDER = "CPUExecutionProvider"
CUDA_PROVIDER = "CUDAExecutionProvider"


def _check(device: str) -> None:
    if device not in DEVICES:
        raise NLIError(f"unknown NLI device {device!r}; choose from {', '.join(DEVICES)}")


def onnx_providers(device: str) -> tuple[str, ...]:
    """ONNX Runtime execution providers for ``device``, best first."""
    _check(device)
    if device == "cpu":
        return (CPU_PROVIDER,)
    import onnxruntime as ort

    if CUDA_PROVIDER in ort.get_available_providers():
        return (CUDA_PROVIDER, CPU_PROVIDER)
    if device == "cuda":
        logger.warning("NLI device cuda: this onnxruntime has no CUDA provider; using the CPU")
    return (CPU_PROVIDER,)


def torch_device(device: str) -> str:
    """The torch device for ``device``."""
    _check(device)
    if device == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        logger.warning("NLI device cuda: torch sees no CUDA device; using the CPU")
    return "cpu"
