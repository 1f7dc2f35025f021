"""Settings: one YAML file plus ``VERIPROXY_*`` environment variables, validated once at start.

``load_settings(path, environ)`` returns a frozen :class:`Settings`. Precedence, lowest first:
embedded defaults < YAML file < environment < explicit overrides (CLI flags). Environment
variables map onto keys with ``__`` for nesting and are parsed as YAML scalars::

    VERIPROXY_PORT=9000                      -> port: 9000
    VERIPROXY_TIMEOUTS__READ=30              -> timeouts: {read: 30}
    VERIPROXY_DEFAULT_UPSTREAM__BASE_URL=... -> default_upstream: {base_url: ...}

``VERIPROXY_CONFIG`` names the YAML file when no path is given. Any invalid value raises
:class:`ConfigError` whose message names the key (``config key timeouts.read: ...``).

An upstream is either OpenAI-compatible (``base_url``) or a litellm model string (``litellm``).
Its key comes from ``api_key_env`` (an environment variable read at load time) or ``api_key``;
with neither, the client's own ``Authorization`` header is forwarded. Keys are held in
:class:`Secret`, whose ``repr`` never shows the value.

Each section is declared once, in :mod:`proxy.settings` (the top level, ``auth`` and
``metrics`` here): a frozen dataclass that is also the schema pydantic validates the merged
mapping against. Importing this module loads neither pydantic nor YAML; loading a
configuration does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from annotated_types import Ge, Le, MinLen

from proxy.settings import Pattern, Section
from proxy.settings.limits import Limits
from proxy.settings.retrieval import RetrievalSettings
from proxy.settings.review import ReviewSettings
from proxy.settings.state import AuditSettings, RateLimitSettings, RedisSettings
from proxy.settings.upstream import (
    DEFAULT_UPSTREAM,
    DEFAULT_UPSTREAM_URL,
    PoolLimits,
    RetryPolicy,
    Secret,
    Timeouts,
    UnknownModelPolicy,
    UpstreamSettings,
)
from proxy.settings.verification import VerificationSettings

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_UPSTREAM_URL",
    "ENV_PREFIX",
    "AuthSettings",
    "ConfigError",
    "MetricsSettings",
    "PoolLimits",
    "Secret",
    "Settings",
    "Timeouts",
    "UnknownModelPolicy",
    "UpstreamSettings",
    "load_settings",
    "settings_from_mapping",
]

ENV_PREFIX = "VERIPROXY_"
CONFIG_ENV = "VERIPROXY_CONFIG"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
DEFAULT_DRAIN_SECONDS = 30.0
# pydantic's messages for a dataclass, in the words a config file's reader knows.
_MESSAGES = {
    "unexpected_keyword_argument": "Extra inputs are not permitted",
    "missing_argument": "Field required",
}


class ConfigError(ValueError):
    """An invalid configuration; the message names the offending key."""


@dataclass(frozen=True, slots=True)
class AuthSettings(Section):
    """Proxy keys. ``store`` (a key file path or ``redis://`` URL) turns them on; without it
    the proxy is keyless, which ``serve`` allows on a loopback address only, unless
    ``allow_unauthenticated`` says otherwise."""

    store: Annotated[str, MinLen(1)] | None = None
    allow_unauthenticated: bool = False


@dataclass(frozen=True, slots=True)
class MetricsSettings(Section):
    """``metrics:`` in the configuration: tenants that get their own label value."""

    tenants: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Settings(Section):
    host: str = DEFAULT_HOST
    port: Annotated[int, Ge(0), Le(65535)] = DEFAULT_PORT
    log_level: Annotated[str, Pattern("^(debug|info|warning|error|critical)$")] = "info"
    max_body_bytes: Annotated[int, Ge(1)] = DEFAULT_MAX_BODY_BYTES
    drain_seconds: Annotated[float, Ge(0)] = DEFAULT_DRAIN_SECONDS
    http2: bool = False
    unknown_model: UnknownModelPolicy = UnknownModelPolicy.DEFAULT
    default_upstream: UpstreamSettings | None = DEFAULT_UPSTREAM
    models: Mapping[str, UpstreamSettings] = field(default_factory=dict)
    timeouts: Timeouts = field(default_factory=Timeouts)
    pool: PoolLimits = field(default_factory=PoolLimits)
    auth: AuthSettings = field(default_factory=AuthSettings)
    limits: Limits = field(default_factory=Limits)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    redis: RedisSettings | None = None
    rate_limits: RateLimitSettings = field(default_factory=RateLimitSettings)
    audit: AuditSettings = field(default_factory=AuditSettings)
    metrics: MetricsSettings = field(default_factory=MetricsSettings)
    verification: VerificationSettings = field(default_factory=VerificationSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    review: ReviewSettings = field(default_factory=ReviewSettings)

    def __post_init__(self) -> None:
        if self.audit.redis_stream is not None and self.redis is None:
            raise ValueError("audit.redis_stream needs a 'redis' section with a url")
        # A reviewer reads the sentence's words, and each label joins the audit chain.
        audited = self.audit.jsonl is not None or self.audit.redis_stream is not None
        if self.review.enabled and not (audited and self.audit.include_text):
            raise ValueError("review.enabled needs an audit log with audit.include_text: true")

    def secrets(self) -> tuple[str, ...]:
        """Every configured key, so sanitisers can scrub them from any outgoing text."""
        upstreams = [self.default_upstream, *self.models.values()]
        return tuple(u.api_key.get() for u in upstreams if u is not None and u.api_key)


# --- loading -----------------------------------------------------------------------------


def load_settings(
    path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Read, merge and validate the configuration. Raises :class:`ConfigError`."""
    env = os.environ if environ is None else environ
    raw: dict[str, Any] = {}
    path = path if path is not None else env.get(CONFIG_ENV) or None
    if path is not None:
        raw = _read_yaml(Path(path))
    _merge(raw, _from_env(env))
    _merge(raw, {k: v for k, v in (overrides or {}).items() if v is not None})
    return settings_from_mapping(raw, env)


def settings_from_mapping(raw: Mapping[str, Any], environ: Mapping[str, str]) -> Settings:
    """Validate an already-merged mapping (what tests and embedders build by hand)."""
    from pydantic import ValidationError

    try:
        settings = _schema(_configures_verifier(raw)).validate_python(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    return replace(
        settings,
        default_upstream=(
            _read_key(settings.default_upstream, "default_upstream", environ)
            if settings.default_upstream is not None
            else None
        ),
        models={
            name: _read_key(upstream, f"models.{name}", environ)
            for name, upstream in settings.models.items()
        },
    )


@cache
def _schema(verifier: bool) -> TypeAdapter[Settings]:
    from pydantic import TypeAdapter

    # VerificationSettings.verifier is annotated with this name; pydantic looks it up among
    # this frame's names when it builds the schema.
    VerifierConfig = _verifier_type(verifier)  # noqa: F841
    return TypeAdapter(Settings)


def _verifier_type(verifier: bool) -> type:
    """What ``VerifierConfig`` stands for in the schema: the verifier's own declaration, or,
    for a file without ``verification.verifier``, None's type (the field can only be None: the
    shipped verifier), so that such a file is read without loading the verifier (onnxruntime),
    which checking the section's components needs."""
    if not verifier:
        return type(None)
    from verifiers.config import VerifierConfig

    return VerifierConfig


def _configures_verifier(raw: Mapping[str, Any]) -> bool:
    verification = raw.get("verification")
    return isinstance(verification, Mapping) and verification.get("verifier") is not None


def _read_key(upstream: UpstreamSettings, key: str, environ: Mapping[str, str]) -> UpstreamSettings:
    """Read the upstream's ``api_key_env`` now, once."""
    name = upstream.api_key_env
    if name is None:
        return upstream
    value = environ.get(name)
    if not value:
        raise ConfigError(f"config key {key}.api_key_env: environment variable {name} is not set")
    return replace(upstream, api_key=Secret(value), api_key_env=None)


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"config file {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path}: invalid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path}: the top level must be a mapping")
    return data


def _from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX) or name == CONFIG_ENV:
            continue
        keys = name[len(ENV_PREFIX) :].lower().split("__")
        node = out
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        try:
            node[keys[-1]] = yaml.safe_load(value) if value else value
        except yaml.YAMLError:
            node[keys[-1]] = value
    return out


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        # Drop pydantic's union-branch markers so the key reads like the YAML path.
        path = tuple(str(p) for p in err["loc"] if not str(p).startswith("function-"))
        message = _MESSAGES.get(err["type"], str(err["msg"]).removeprefix("Value error, "))
        lines.append(f"config key {'.'.join(path) or '(top level)'}: {message}")
    return "; ".join(lines)
