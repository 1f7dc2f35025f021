"""NLI backends by name, so configuration (and users) can swap them: ``create_backend("hf",
model="...")``. Factories import their heavy dependencies only when called."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verifiers._registry import Lazy, Registry
from verifiers.nli._base import NLIBackend, NLIError

BackendFactory = Callable[..., NLIBackend]
# An unknown backend is an NLIError, as any other reason the backend cannot run.
BACKENDS: Registry[BackendFactory] = Registry("NLI backend", error=NLIError)


def register_backend(name: str) -> Callable[[BackendFactory], BackendFactory]:
    """Decorator: make ``factory(**options)`` available as backend ``name``."""
    return BACKENDS.register(name)


def backend_names() -> tuple[str, ...]:
    return BACKENDS.names()


def create_backend(name: str, **options: Any) -> NLIBackend:
    """Build the backend registered as ``name`` with its options."""
    return BACKENDS.get(name)(**options)


BACKENDS.add("bundled", Lazy("verifiers.nli.bundled", "BundledNLI"))
BACKENDS.add("hf", Lazy("verifiers.nli.hf_backend", "HFNLI"))
BACKENDS.add("llm", Lazy("verifiers.nli.llm_judge", "LLMJudge"))
