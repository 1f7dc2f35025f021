"""The NLI device setting: CPU by default, CUDA where this machine has it, a clean fallback to
the CPU (with a warning) where it has not, and the backend says where it really runs."""

from __future__ import annotations

import logging
from pathlib import Path

import onnxruntime as ort
import pytest

from verifiers.nli import NLIError
from verifiers.nli.bundled import BundledNLI
from verifiers.nli.devices import CPU_PROVIDER, CUDA_PROVIDER, onnx_providers, torch_device
from verifiers.nli.hf_backend import HFNLI

HAS_ONNX_CUDA = CUDA_PROVIDER in ort.get_available_providers()


def test_cpu_is_the_default_and_needs_nothing_else() -> None:
    assert onnx_providers("cpu") == (CPU_PROVIDER,)
    assert torch_device("cpu") == "cpu"
    assert BundledNLI().provider == CPU_PROVIDER


def test_auto_takes_cuda_only_where_there_is_one() -> None:
    expected = (CUDA_PROVIDER, CPU_PROVIDER) if HAS_ONNX_CUDA else (CPU_PROVIDER,)
    assert onnx_providers("auto") == expected


@pytest.mark.skipif(HAS_ONNX_CUDA, reason="this onnxruntime has CUDA: nothing to fall back from")
def test_cuda_without_cuda_falls_back_to_the_cpu_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="veriproxy.nli"):
        backend = BundledNLI(device="cuda")
    assert backend.provider == CPU_PROVIDER
    assert "no CUDA provider" in caplog.text
    assert f"runs on {CPU_PROVIDER}" in caplog.text


def test_hf_backend_follows_the_same_setting(
    tmp_path: Path, tiny_model: object, caplog: pytest.LogCaptureFixture
) -> None:
    torch = pytest.importorskip("torch")
    model = tiny_model(tmp_path, {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, "NEUTRAL")  # type: ignore[operator]
    with caplog.at_level(logging.WARNING, logger="veriproxy.nli"):
        backend = HFNLI(model, device="cuda", threads=1)
    if torch.cuda.is_available():
        assert backend.provider == "cuda"
    else:
        assert backend.provider == "cpu" and "no CUDA device" in caplog.text


def test_an_unknown_device_is_a_clear_error() -> None:
    with pytest.raises(NLIError, match="choose from cpu, cuda, auto"):
        onnx_providers("tpu")
