"""``verification.verifier``, the verifier's configuration, declared once.

Every key is a field of :class:`VerifierConfig`, validated like the proxy's other sections
(pydantic, unknown keys refused with their path). A component section (``nli``, ``decomposer``,
``harm``) names a registered component and gives its options beside the name; the options are
checked against that component's constructor without building it, as spaCy's registry checks a
config against a registered function's signature: ``nli: {name: hf, modle: x}`` fails at
start-up naming ``modle`` and suggesting ``model``. ``Verifier.from_config`` takes the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field

from verifiers._registry import Registry, check_options
from verifiers.checks import get_checks
from verifiers.claims import DECOMPOSERS
from verifiers.errors import VerifierError
from verifiers.harm import HARM_SCORERS
from verifiers.judge.settings import EscalationSettings
from verifiers.nli.batching import BatchOptions
from verifiers.nli.registry import BACKENDS
from verifiers.relatedness import UNRELATED_BELOW
from verifiers.windows import WindowSelector

_STRICT: ConfigDict = ConfigDict(extra="forbid")


@dataclass(frozen=True, slots=True)
class Component:
    """A registered component by ``name``, with the options its constructor takes."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Windows:
    """``windows``: ``embed`` turns on the embedding rerank (off: it costs more than the NLI
    on a small CPU); the other options are :class:`~verifiers.windows.WindowSelector`'s."""

    embed: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)


def _flat(default: str) -> Any:
    """``{name: x, **options}`` as the file writes it -> ``Component`` fields."""

    def split(value: Any) -> Any:
        if isinstance(value, Component) or not isinstance(value, Mapping):
            return value  # a Component already, or pydantic's own type error
        options = {k: v for k, v in value.items() if k != "name"}
        return {"name": value.get("name", default), "options": options}

    return BeforeValidator(split)


def _checked(registry: Registry[Any]) -> Any:
    def check(component: Component) -> Component:
        try:
            return Component(
                component.name, registry.check_options(component.name, component.options)
            )
        except VerifierError as exc:
            raise ValueError(str(exc)) from None

    return AfterValidator(check)


def _windows(value: Any) -> Any:
    if isinstance(value, Windows) or not isinstance(value, Mapping):
        return value
    options = {k: v for k, v in value.items() if k != "embed"}
    return {"embed": value.get("embed", False), "options": options}


def _window_options(windows: Windows) -> Windows:
    options = check_options(WindowSelector, windows.options, internal=("encoder",))
    return Windows(windows.embed, options)


def _checks(names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    try:
        get_checks(names)
    except VerifierError as exc:
        raise ValueError(str(exc)) from None
    return names


def _batching(value: Any) -> Any:
    if value is None or isinstance(value, BatchOptions):
        return value
    try:
        return BatchOptions.parse(value)
    except VerifierError as exc:
        raise ValueError(str(exc).removeprefix("batching: ")) from None


NLI = Annotated[Component, _flat("bundled"), _checked(BACKENDS)]
Decomposer = Annotated[Component, _flat("rules"), _checked(DECOMPOSERS)]
Harm = Annotated[Component, _flat("rules"), _checked(HARM_SCORERS)]


@dataclass(frozen=True, slots=True)
class VerifierConfig:
    """Everything under ``verification.verifier``; the defaults are the shipped verifier.

    ``checks``: the deterministic checks by registered name (None: all built-in ones);
    ``batching``: pool the NLI pairs of concurrent calls (:mod:`verifiers.nli.batching`, off
    when None); ``review_below``: a claim whose confidence is below it needs review (None: the
    threshold calibrated with the model); ``unrelated_below``: a model contradiction whose claim
    and evidence are less similar than this (cosine of the bundled sentence encoder) is set
    aside as ``unrelated`` (None: never, and the encoder is not loaded for it);
    ``escalate``: the LLM judge cascade
    (:mod:`verifiers.judge`), which a policy's own ``escalate`` replaces for its requests.
    """

    __pydantic_config__: ClassVar[ConfigDict] = _STRICT
    nli: NLI = field(default_factory=lambda: Component("bundled"))
    decomposer: Decomposer = field(default_factory=lambda: Component("rules"))
    harm: Harm = field(default_factory=lambda: Component("rules"))
    windows: Annotated[Windows, BeforeValidator(_windows), AfterValidator(_window_options)] = field(
        default_factory=Windows
    )
    checks: Annotated[tuple[str, ...] | None, AfterValidator(_checks)] = None
    batching: Annotated[BatchOptions | None, BeforeValidator(_batching)] = None
    review_below: Annotated[float, Field(ge=0, le=1)] | None = None
    unrelated_below: Annotated[float, Field(ge=-1, le=1)] | None = UNRELATED_BELOW
    escalate: EscalationSettings | None = None


def verifier_config(data: Mapping[str, Any] | None = None) -> VerifierConfig:
    """Validate a plain mapping (a test's or an embedder's) into a ``VerifierConfig``; raises
    pydantic's ``ValidationError`` naming each bad key."""
    from pydantic import TypeAdapter

    return TypeAdapter(VerifierConfig).validate_python(dict(data or {}))
