"""Proxy keys: their format, how they are hashed, and the records a key store holds.

A proxy key reads ``sk-vp-<key id>-<secret>``: the key id (12 hex characters) is public and
names the record; the secret (48 hex characters, 192 random bits) is shown once, at creation,
and only its SHA-256 digest is stored. The ``sk-`` prefix lets OpenAI SDKs accept the key as an
API key and lets the proxy's log sanitiser recognise and scrub it.

SHA-256 rather than a slow password hash: the secret is random with 192 bits of entropy, so a
stolen digest cannot be brute-forced, and every request must verify a key cheaply.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass, replace

KEY_PREFIX = "sk-vp-"
KEY_ID_HEX = 12
SECRET_BYTES = 24
_KEY_RE = re.compile(rf"^{KEY_PREFIX}([0-9a-f]{{{KEY_ID_HEX}}})-([0-9a-f]{{{SECRET_BYTES * 2}}})$")
_KEY_ID_RE = re.compile(rf"^[0-9a-f]{{{KEY_ID_HEX}}}$")
# Roles a key may hold beyond calling the API. ``reviewer``: may read, from the audit log, the
# words a policy withheld from its tenant's answers (``GET /v1/audit/{request id}/withheld``).
REVIEWER = "reviewer"
ROLES: tuple[str, ...] = (REVIEWER,)


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """One proxy key as stored. Empty ``allowed_models``/``allowed_policies`` mean "any";
    ``roles`` are extra rights (see :data:`ROLES`), none by default."""

    key_id: str
    tenant: str
    secret_sha256: str
    allowed_models: tuple[str, ...] = ()
    allowed_policies: tuple[str, ...] = ()
    created_at: float = 0.0
    revoked_at: float | None = None
    roles: tuple[str, ...] = ()

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def revoke(self, at: float | None = None) -> KeyRecord:
        return replace(self, revoked_at=time.time() if at is None else at)

    def to_dict(self) -> dict[str, object]:
        return {
            "key_id": self.key_id,
            "tenant": self.tenant,
            "secret_sha256": self.secret_sha256,
            "allowed_models": list(self.allowed_models),
            "allowed_policies": list(self.allowed_policies),
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "roles": list(self.roles),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> KeyRecord:
        """Parse a stored record; raises ``ValueError`` on any malformed field."""
        key_id, tenant, digest = data.get("key_id"), data.get("tenant"), data.get("secret_sha256")
        if not isinstance(key_id, str) or not _KEY_ID_RE.match(key_id):
            raise ValueError("key record: bad key_id")
        if not isinstance(tenant, str) or not tenant:
            raise ValueError(f"key record {key_id}: bad tenant")
        if not isinstance(digest, str) or len(digest) != 64:
            raise ValueError(f"key record {key_id}: bad secret_sha256")
        created, revoked = data.get("created_at", 0.0), data.get("revoked_at")
        if not isinstance(created, int | float) or not (
            revoked is None or isinstance(revoked, int | float)
        ):
            raise ValueError(f"key record {key_id}: bad timestamps")
        return cls(
            key_id=key_id,
            tenant=tenant,
            secret_sha256=digest,
            allowed_models=_names(data.get("allowed_models", []), key_id),
            allowed_policies=_names(data.get("allowed_policies", []), key_id),
            created_at=float(created),
            revoked_at=None if revoked is None else float(revoked),
            roles=_roles(data.get("roles", []), key_id),  # absent in records made before roles
        )


def _roles(value: object, key_id: str) -> tuple[str, ...]:
    roles = _names(value, key_id)
    unknown = sorted(set(roles) - set(ROLES))
    if unknown:
        raise ValueError(f"key record {key_id}: unknown role(s) {', '.join(unknown)}")
    return roles


def _names(value: object, key_id: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"key record {key_id}: allowed lists must be lists of strings")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling, as the auth middleware puts it in ``scope["state"]["principal"]``.

    ``key_id`` is None in the keyless local mode. Empty allow-lists mean "any".
    """

    tenant: str
    key_id: str | None
    allowed_models: tuple[str, ...] = ()
    allowed_policies: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()

    def has_role(self, role: str) -> bool:
        return role in self.roles

    def may_use_model(self, model: str) -> bool:
        return not self.allowed_models or model in self.allowed_models

    def may_use_policy(self, policy: str) -> bool:
        return not self.allowed_policies or policy in self.allowed_policies

    @classmethod
    def of(cls, record: KeyRecord) -> Principal:
        return cls(
            record.tenant,
            record.key_id,
            record.allowed_models,
            record.allowed_policies,
            record.roles,
        )


LOCAL_PRINCIPAL = Principal(tenant="local", key_id=None)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key(
    tenant: str,
    allowed_models: tuple[str, ...] = (),
    allowed_policies: tuple[str, ...] = (),
    roles: tuple[str, ...] = (),
) -> tuple[str, KeyRecord]:
    """A fresh ``(plaintext key, record)``; the plaintext must be shown once and then dropped."""
    if not tenant.strip():
        raise ValueError("tenant must not be empty")
    unknown = sorted(set(roles) - set(ROLES))
    if unknown:
        raise ValueError(f"unknown role(s): {', '.join(unknown)} (known: {', '.join(ROLES)})")
    key_id = secrets.token_hex(KEY_ID_HEX // 2)
    secret = secrets.token_hex(SECRET_BYTES)
    record = KeyRecord(
        key_id=key_id,
        tenant=tenant.strip(),
        secret_sha256=digest(secret),
        allowed_models=allowed_models,
        allowed_policies=allowed_policies,
        created_at=time.time(),
        roles=tuple(dict.fromkeys(roles)),
    )
    return f"{KEY_PREFIX}{key_id}-{secret}", record


def parse_key(key: str) -> tuple[str, str] | None:
    """``(key_id, secret)`` of a well-formed proxy key, else None."""
    match = _KEY_RE.match(key)
    return (match.group(1), match.group(2)) if match else None


def secret_matches(record: KeyRecord, secret: str) -> bool:
    """Constant-time comparison of digests, so timing reveals nothing about the stored hash."""
    return secrets.compare_digest(digest(secret), record.secret_sha256)
