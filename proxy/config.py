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

Pydantic validates the raw mapping (the config file is a boundary); everything handed to the
rest of the proxy is a frozen dataclass.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from proxy.audit.log import AuditSettings
from proxy.audit.redis_stream import DEFAULT_MAX_PENDING
from proxy.evidence.settings import RetrievalConfigModel, RetrievalSettings
from proxy.limits import Limits
from proxy.metrics import MetricsSettings
from proxy.retry import RetryPolicy
from proxy.state import RedisSettings
from proxy.state._redis import DEFAULT_PREFIX, DEFAULT_RETRY_AFTER, DEFAULT_SOCKET_TIMEOUT
from proxy.state.ratelimit import DEFAULT_WINDOW_SECONDS, RateLimitSettings
from proxy.state.ratelimit import Limits as RateLimits
from proxy.verification._settings import (
    DEFAULT_MAX_SENTENCE_CHARS,
    DEFAULT_POLICY,
    DEFAULT_RELOAD_SECONDS,
    DEFAULT_REPORT_TTL_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    VerificationSettings,
)
from verifiers.judge.settings import EscalationSettings

ENV_PREFIX = "VERIPROXY_"
CONFIG_ENV = "VERIPROXY_CONFIG"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
DEFAULT_UPSTREAM_URL = "https://api.openai.com/v1"
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
DEFAULT_DRAIN_SECONDS = 30.0


class ConfigError(ValueError):
    """An invalid configuration; the message names the offending key."""


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


@dataclass(frozen=True, slots=True)
class UpstreamSettings:
    """Where one model's requests go. Exactly one of ``base_url`` / ``litellm_model`` is set."""

    base_url: str | None = None
    litellm_model: str | None = None
    # Model name sent upstream; None keeps the name the client asked for.
    model: str | None = None
    api_key: Secret | None = None
    # litellm only: the provider's base URL, where it is not the provider's default.
    api_base: str | None = None

    @property
    def kind(self) -> str:
        return "openai" if self.base_url is not None else "litellm"


@dataclass(frozen=True, slots=True)
class Timeouts:
    connect: float = 5.0
    read: float = 600.0
    write: float = 30.0
    pool: float = 10.0


@dataclass(frozen=True, slots=True)
class PoolLimits:
    max_connections: int = 512
    max_keepalive_connections: int = 128
    keepalive_expiry: float = 30.0


@dataclass(frozen=True, slots=True)
class AuthSettings:
    """Proxy keys. ``store`` (a key file path or ``redis://`` URL) turns them on; without it
    the proxy is keyless, which ``serve`` allows on a loopback address only, unless
    ``allow_unauthenticated`` says otherwise."""

    store: str | None = None
    allow_unauthenticated: bool = False


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    log_level: str = "info"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    drain_seconds: float = DEFAULT_DRAIN_SECONDS
    http2: bool = False
    unknown_model: UnknownModelPolicy = UnknownModelPolicy.DEFAULT
    default_upstream: UpstreamSettings | None = UpstreamSettings(base_url=DEFAULT_UPSTREAM_URL)
    models: Mapping[str, UpstreamSettings] = field(default_factory=dict)
    timeouts: Timeouts = Timeouts()
    pool: PoolLimits = PoolLimits()
    auth: AuthSettings = AuthSettings()
    limits: Limits = field(default_factory=Limits)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    redis: RedisSettings | None = None
    rate_limits: RateLimitSettings = field(default_factory=RateLimitSettings)
    audit: AuditSettings = field(default_factory=AuditSettings)
    metrics: MetricsSettings = field(default_factory=MetricsSettings)
    verification: VerificationSettings = field(default_factory=VerificationSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)

    def secrets(self) -> tuple[str, ...]:
        """Every configured key, so sanitisers can scrub them from any outgoing text."""
        upstreams = [self.default_upstream, *self.models.values()]
        return tuple(u.api_key.get() for u in upstreams if u is not None and u.api_key)


# --- validation models (boundary only) ---------------------------------------------------


_T = Timeouts()
_P = PoolLimits()
_LIM = Limits()
_RET = RetryPolicy()


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _UpstreamModel(_Strict):
    base_url: str | None = None
    litellm: str | None = None
    model: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    api_base: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> _UpstreamModel:
        if (self.base_url is None) == (self.litellm is None):
            raise ValueError("set exactly one of 'base_url' or 'litellm'")
        if self.api_base is not None and self.litellm is None:
            raise ValueError("api_base goes with 'litellm' (use base_url otherwise)")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://")
        if self.api_key is not None and self.api_key_env is not None:
            raise ValueError("set at most one of 'api_key' or 'api_key_env'")
        return self


class _TimeoutsModel(_Strict):
    connect: float = Field(default=_T.connect, gt=0)
    read: float = Field(default=_T.read, gt=0)
    write: float = Field(default=_T.write, gt=0)
    pool: float = Field(default=_T.pool, gt=0)


class _PoolModel(_Strict):
    max_connections: int = Field(default=_P.max_connections, ge=1)
    max_keepalive_connections: int = Field(default=_P.max_keepalive_connections, ge=0)
    keepalive_expiry: float = Field(default=_P.keepalive_expiry, ge=0)


class _AuthModel(_Strict):
    store: str | None = Field(default=None, min_length=1)
    allow_unauthenticated: bool = False


class _LimitsModel(_Strict):
    max_messages: int = Field(default=_LIM.max_messages, ge=1)
    max_prompt_chars: int = Field(default=_LIM.max_prompt_chars, ge=1)
    max_tokens: int | None = Field(default=_LIM.max_tokens, ge=1)
    max_streams_per_key: int = Field(default=_LIM.max_streams_per_key, ge=1)
    request_seconds: float = Field(default=_LIM.request_seconds, gt=0)
    stream_seconds: float = Field(default=_LIM.stream_seconds, gt=0)
    max_event_bytes: int = Field(default=_LIM.max_event_bytes, ge=1024)
    max_evidence_chars: int = Field(default=_LIM.max_evidence_chars, ge=1)
    max_upload_bytes: int = Field(default=_LIM.max_upload_bytes, ge=1)


class _RetryModel(_Strict):
    max_attempts: int = Field(default=_RET.max_attempts, ge=1, le=10)
    backoff_seconds: float = Field(default=_RET.backoff_seconds, ge=0)
    max_backoff_seconds: float = Field(default=_RET.max_backoff_seconds, ge=0)


class _RedisModel(_Strict):
    url: str = Field(pattern="^(redis|rediss|unix)://")
    prefix: str = Field(default=DEFAULT_PREFIX, min_length=1)
    socket_timeout: float = Field(default=DEFAULT_SOCKET_TIMEOUT, gt=0)
    retry_after: float = Field(default=DEFAULT_RETRY_AFTER, ge=0)


class _RateLimitModel(_Strict):
    requests: int | None = Field(default=None, ge=1)
    tokens: int | None = Field(default=None, ge=1)
    window_seconds: float = Field(default=DEFAULT_WINDOW_SECONDS, gt=0)


class _RateLimitsModel(_Strict):
    default: _RateLimitModel = _RateLimitModel()
    tenants: dict[str, _RateLimitModel] = Field(default_factory=dict)


class _AuditModel(_Strict):
    jsonl: str | None = Field(default=None, min_length=1)
    redis_stream: str | None = Field(default=None, min_length=1)
    include_text: bool = False
    fsync: bool = False
    max_pending: int = Field(default=DEFAULT_MAX_PENDING, ge=1)


class _MetricsModel(_Strict):
    tenants: tuple[str, ...] = ()


class _VerifierModel(BaseModel):
    """``verification.verifier``: handed to ``Verifier.from_config`` as it is, except
    ``escalate`` (the LLM judge cascade), which is validated here."""

    model_config = ConfigDict(extra="allow")
    escalate: EscalationSettings | None = None


class _VerificationModel(_Strict):
    enabled: bool = True
    timeout_seconds: float = Field(default=DEFAULT_TIMEOUT_SECONDS, gt=0)
    verifier: _VerifierModel = Field(default_factory=_VerifierModel)
    policies_dir: str | None = Field(default=None, min_length=1)
    default_policy: str = Field(default=DEFAULT_POLICY, min_length=1)
    reload_seconds: float = Field(default=DEFAULT_RELOAD_SECONDS, gt=0)
    report_ttl_seconds: float = Field(default=DEFAULT_REPORT_TTL_SECONDS, gt=0)
    max_sentence_chars: int = Field(default=DEFAULT_MAX_SENTENCE_CHARS, ge=100)


class _SettingsModel(_Strict):
    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    log_level: str = Field(default="info", pattern="^(debug|info|warning|error|critical)$")
    max_body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1)
    drain_seconds: float = Field(default=DEFAULT_DRAIN_SECONDS, ge=0)
    http2: bool = False
    unknown_model: UnknownModelPolicy = UnknownModelPolicy.DEFAULT
    default_upstream: _UpstreamModel | None = _UpstreamModel(base_url=DEFAULT_UPSTREAM_URL)
    models: dict[str, _UpstreamModel] = Field(default_factory=dict)
    timeouts: _TimeoutsModel = _TimeoutsModel()
    pool: _PoolModel = _PoolModel()
    auth: _AuthModel = _AuthModel()
    limits: _LimitsModel = _LimitsModel()
    retry: _RetryModel = _RetryModel()
    redis: _RedisModel | None = None
    rate_limits: _RateLimitsModel = _RateLimitsModel()
    audit: _AuditModel = _AuditModel()
    metrics: _MetricsModel = _MetricsModel()
    verification: _VerificationModel = _VerificationModel()
    retrieval: RetrievalConfigModel = RetrievalConfigModel()

    @model_validator(mode="after")
    def _audit_stream_needs_redis(self) -> _SettingsModel:
        if self.audit.redis_stream is not None and self.redis is None:
            raise ValueError("audit.redis_stream needs a 'redis' section with a url")
        return self


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
    try:
        parsed = _SettingsModel.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    return Settings(
        host=parsed.host,
        port=parsed.port,
        log_level=parsed.log_level,
        max_body_bytes=parsed.max_body_bytes,
        drain_seconds=parsed.drain_seconds,
        http2=parsed.http2,
        unknown_model=parsed.unknown_model,
        default_upstream=(
            _upstream(parsed.default_upstream, "default_upstream", environ)
            if parsed.default_upstream is not None
            else None
        ),
        models={
            name: _upstream(model, f"models.{name}", environ)
            for name, model in parsed.models.items()
        },
        timeouts=Timeouts(**parsed.timeouts.model_dump()),
        pool=PoolLimits(**parsed.pool.model_dump()),
        auth=AuthSettings(**parsed.auth.model_dump()),
        limits=Limits(**parsed.limits.model_dump()),
        retry=RetryPolicy(**parsed.retry.model_dump()),
        redis=RedisSettings(**parsed.redis.model_dump()) if parsed.redis else None,
        rate_limits=RateLimitSettings(
            default=RateLimits(**parsed.rate_limits.default.model_dump()),
            tenants={
                name: RateLimits(**limits.model_dump())
                for name, limits in parsed.rate_limits.tenants.items()
            },
        ),
        audit=AuditSettings(**parsed.audit.model_dump()),
        metrics=MetricsSettings(tenants=parsed.metrics.tenants),
        verification=_verification(parsed.verification),
        retrieval=parsed.retrieval.to_settings(),
    )


def _verification(model: _VerificationModel) -> VerificationSettings:
    return VerificationSettings(
        **model.model_dump(exclude={"verifier"}),
        verifier=dict(model.verifier.model_extra or {}),
        escalate=model.verifier.escalate,
    )


def _upstream(model: _UpstreamModel, key: str, environ: Mapping[str, str]) -> UpstreamSettings:
    api_key: Secret | None = None
    if model.api_key is not None:
        api_key = Secret(model.api_key)
    elif model.api_key_env is not None:
        value = environ.get(model.api_key_env)
        if not value:
            raise ConfigError(
                f"config key {key}.api_key_env: environment variable {model.api_key_env} is not set"
            )
        api_key = Secret(value)
    return UpstreamSettings(
        base_url=model.base_url.rstrip("/") if model.base_url else None,
        litellm_model=model.litellm,
        model=model.model,
        api_key=api_key,
        api_base=model.api_base,
    )


def _read_yaml(path: Path) -> dict[str, Any]:
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
        loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-"))
        message = str(err["msg"]).removeprefix("Value error, ")
        lines.append(f"config key {loc or '(top level)'}: {message}")
    return "; ".join(lines)
