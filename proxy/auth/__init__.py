"""Proxy keys: hashed at rest, mapped to tenants, checked by a plain ASGI middleware.

Public surface: the key format (:func:`new_key`, :func:`parse_key`), records and principals,
their roles, the two stores, the middleware and the per-request permission checks.
"""

from __future__ import annotations

from ._errors import KeyStoreUnavailable, PermissionDenied, Unauthenticated
from ._exposure import exposure_problem, is_loopback
from ._keys import (
    KEY_PREFIX,
    LOCAL_PRINCIPAL,
    REVIEWER,
    ROLES,
    KeyRecord,
    Principal,
    new_key,
    parse_key,
)
from ._middleware import (
    DEFAULT_PUBLIC_PATHS,
    AuthMiddleware,
    require_model,
    require_policy,
    require_role,
)
from ._store import (
    FileKeyStore,
    KeyStore,
    KeyStoreError,
    RedisKeyStore,
    UnknownKey,
    open_store,
    store_readiness,
)

__all__ = [
    "DEFAULT_PUBLIC_PATHS",
    "KEY_PREFIX",
    "LOCAL_PRINCIPAL",
    "REVIEWER",
    "ROLES",
    "AuthMiddleware",
    "FileKeyStore",
    "KeyRecord",
    "KeyStore",
    "KeyStoreError",
    "KeyStoreUnavailable",
    "PermissionDenied",
    "Principal",
    "RedisKeyStore",
    "Unauthenticated",
    "UnknownKey",
    "exposure_problem",
    "is_loopback",
    "new_key",
    "open_store",
    "parse_key",
    "require_model",
    "require_policy",
    "require_role",
    "store_readiness",
]
