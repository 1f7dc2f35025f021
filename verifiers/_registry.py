"""Components chosen by the name config gives them. NLI backends, claim decomposers, harm
scorers and the deterministic checks all register in a ``Registry`` of their kind, so a user
swaps one from config the same way for each (and registers their own under a new name)."""

from __future__ import annotations

import difflib
import importlib
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from verifiers.errors import UnknownComponent, VerifierError

_T = TypeVar("_T")


class Lazy:
    """A registry entry that imports its class only when called or inspected, so registering a
    backend costs nothing and checking its options loads no model."""

    def __init__(self, module: str, attr: str) -> None:
        self.module = module
        self.attr = attr

    def target(self) -> Callable[..., Any]:
        found: Callable[..., Any] = getattr(importlib.import_module(self.module), self.attr)
        return found

    def __call__(self, **options: Any) -> Any:
        return self.target()(**options)


class Registry(Generic[_T]):
    """Entries of one kind by name: ``registry.get("rules")``; an unknown name raises ``error``
    with a message naming the known ones."""

    def __init__(self, kind: str, *, error: type[VerifierError] = UnknownComponent) -> None:
        self.kind = kind
        self._error = error
        self._entries: dict[str, _T] = {}

    def add(self, name: str, entry: _T) -> _T:
        """Register ``entry`` as ``name`` (replacing what was there: that is how one swaps)."""
        self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[_T], _T]:
        """Decorator form of ``add``."""

        def decorate(entry: _T) -> _T:
            return self.add(name, entry)

        return decorate

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._entries))

    def check_options(self, name: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` as the entry ``name`` takes them, or ``error`` (see
        :func:`check_options`)."""
        entry: Any = self.get(name)
        target = entry.target() if isinstance(entry, Lazy) else entry
        try:
            return check_options(target, options)
        except ValueError as exc:
            raise self._error(f"{self.kind} {name!r}: {exc}") from None

    def get(self, name: str) -> _T:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self.names())
            raise self._error(f"unknown {self.kind} {name!r}; choose from {known}") from None


def check_options(
    target: Callable[..., Any], options: Mapping[str, Any], *, internal: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``options`` validated against ``target``'s signature: its own parameters (less
    ``internal`` ones, which the caller fills) and their types, as spaCy's registry checks a
    config, without calling it, so a misspelt option fails at start-up, not at the first call.
    Values come back as the parameter's type reads them (``"2"`` from the environment is 2);
    anything else raises ``ValueError``."""
    signature = inspect.signature(target)
    allowed = [
        p.name
        for p in signature.parameters.values()
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in internal
    ]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    unknown = [] if takes_any else [k for k in options if k not in allowed]
    if unknown:
        hint = difflib.get_close_matches(unknown[0], allowed, n=1)
        suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
        known = ", ".join(allowed) or "none"
        raise ValueError(f"unknown option {unknown[0]!r}{suggestion}; its options: {known}")
    try:
        bound = signature.bind_partial(**options) if internal else signature.bind(**options)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    hints = _hints(target)
    return {
        option: _check_type(option, hints[option], value) if option in hints else value
        for option, value in bound.arguments.items()
    }


def _hints(target: Callable[..., Any]) -> dict[str, Any]:
    """The factory's resolved parameter annotations ({} when they cannot be resolved)."""
    function: Any = target
    if isinstance(target, type):
        function = function.__init__
    try:
        return typing.get_type_hints(function)
    except (NameError, TypeError):
        return {}


def _check_type(option: str, hint: Any, value: Any) -> Any:
    from pydantic import ConfigDict, TypeAdapter, ValidationError
    from pydantic.errors import PydanticSchemaGenerationError

    try:
        adapter: TypeAdapter[Any] = TypeAdapter(
            hint, config=ConfigDict(arbitrary_types_allowed=True)
        )
    except PydanticSchemaGenerationError:  # a type pydantic cannot check: the factory will
        return value
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise ValueError(f"option {option!r}: {exc.errors()[0]['msg']}") from None
