"""NLI backends by name, so configuration (and users) can swap them: ``create_backend("hf",
model="...")``. Factories import their heavy dependencies only when called."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verifiers.nli._base import NLIBackend, NLIError

BackendFactory = Callable[..., NLIBackend]
_FACTORIES: dict[str, BackendFactory] = {}


def register_backend(name: str) -> Callable[[BackendFactory], BackendFactory]:
    """Decorator: make ``factory(**options)`` available as backend ``name``."""

    def decorate(factory: BackendFactory) -> BackendFactory:
        _FACTORIES[name] = factory
        return factory

    return decorate


def backend_names() -> tuple[str, ...]:
    return tuple(sorted(_FACTORIES))


def create_backend(name: str, **options: Any) -> NLIBackend:
    """Build the backend registered as ``name`` with its options."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise NLIError(
            f"unknown NLI backend {name!r}; known: {', '.join(backend_names())}"
        ) from None
    return factory(**options)


@register_backend("bundled")
def _bundled(**options: Any) -> NLIBackend:
    from verifiers.nli.bundled import BundledNLI

    backend: NLIBackend = BundledNLI(**options)
    return backend


@register_backend("hf")
def _hf(**options: Any) -> NLIBackend:
    from verifiers.nli.hf_backend import HFNLI

    return HFNLI(**options)


@register_backend("llm")
def _llm(**options: Any) -> NLIBackend:
    from verifiers.nli.llm_judge import LLMJudge

    return LLMJudge(**options)
