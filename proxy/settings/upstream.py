"""Where requests go and how: ``default_upstream``/``models``, ``unknown_model``, ``timeouts``,
``pool`` and ``retry``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from annotated_types import Ge, Gt, Le

from proxy.settings._section import Section

DEFAULT_UPSTREAM_URL = "https://api.openai.com/v1"


class UnknownModelPolicy(StrEnum):
    DEFAULT = "default"  # send to the default upstream, model name unchanged
    REJECT = "reject"  # 404 in OpenAI's format


class Secret:
    """A secret string whose repr/str never reveal it (settings get printed and logged)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """A config file's ``api_key`` is a string; it is wrapped as soon as it is read."""
        from pydantic_core import core_schema  # only when a configuration is validated

        return core_schema.no_info_after_validator_function(cls, core_schema.str_schema())


@dataclass(frozen=True, slots=True)
class UpstreamSettings(Section):
    """Where one model's requests go: exactly one of ``base_url`` (OpenAI-compatible) or
    ``litellm`` (a litellm model string). The key is ``api_key``, or read from the environment
    variable ``api_key_env`` when the configuration is loaded (which then sets ``api_key``)."""

    base_url: str | None = None
    litellm: str | None = None
    # Model name sent upstream; None keeps the name the client asked for.
    model: str | None = None
    api_key: Secret | None = None
    api_key_env: str | None = None
    # litellm only: the provider's base URL, where it is not the provider's default.
    api_base: str | None = None

    def __post_init__(self) -> None:
        if (self.base_url is None) == (self.litellm is None):
            raise ValueError("set exactly one of 'base_url' or 'litellm'")
        if self.api_base is not None and self.litellm is None:
            raise ValueError("api_base goes with 'litellm' (use base_url otherwise)")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://")
        if self.api_key is not None and self.api_key_env is not None:
            raise ValueError("set at most one of 'api_key' or 'api_key_env'")
        if self.base_url is not None:
            object.__setattr__(self, "base_url", self.base_url.rstrip("/"))  # frozen

    @property
    def kind(self) -> str:
        return "openai" if self.base_url is not None else "litellm"

    @property
    def litellm_model(self) -> str | None:
        return self.litellm


@dataclass(frozen=True, slots=True)
class Timeouts(Section):
    """Seconds, per upstream request (``httpx.Timeout``)."""

    connect: Annotated[float, Gt(0)] = 5.0
    read: Annotated[float, Gt(0)] = 600.0
    write: Annotated[float, Gt(0)] = 30.0
    pool: Annotated[float, Gt(0)] = 10.0


@dataclass(frozen=True, slots=True)
class PoolLimits(Section):
    """``httpx.Limits`` of the one shared upstream client."""

    max_connections: Annotated[int, Ge(1)] = 512
    max_keepalive_connections: Annotated[int, Ge(0)] = 128
    keepalive_expiry: Annotated[float, Ge(0)] = 30.0


@dataclass(frozen=True, slots=True)
class RetryPolicy(Section):
    """Retries of an upstream call that failed before any byte reached the client."""

    # Total tries including the first; 1 turns retrying off.
    max_attempts: Annotated[int, Ge(1), Le(10)] = 3
    backoff_seconds: Annotated[float, Ge(0)] = 0.5
    max_backoff_seconds: Annotated[float, Ge(0)] = 8.0


# Where models not listed in ``models:`` go, unless the configuration says otherwise.
DEFAULT_UPSTREAM = UpstreamSettings(base_url=DEFAULT_UPSTREAM_URL)
