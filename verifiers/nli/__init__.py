"""NLI backends behind one interface (``NLIBackend``: the bundled ONNX model, any Hugging Face
model, an LLM judge), chosen by name (``create_backend``; ``register_backend`` adds one), and
the rule that turns a claim's window scores into a decision (``decide``)."""

from verifiers.nli._base import NLIBackend, NLIError, NLIPair, NLIScores
from verifiers.nli.decide import Decision, Thresholds, decide
from verifiers.nli.registry import backend_names, create_backend, register_backend

__all__ = [
    "Decision",
    "NLIBackend",
    "NLIError",
    "NLIPair",
    "NLIScores",
    "Thresholds",
    "backend_names",
    "create_backend",
    "decide",
    "register_backend",
]
