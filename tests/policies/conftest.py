"""The verification tests' evidence and tiny NLI model, for the protocol's end-to-end check."""

from tests.verifiers.conftest import evidence, tiny_model

__all__ = ["evidence", "tiny_model"]
