"""``AuthMiddleware``: plain ASGI, resolves ``Authorization: Bearer <proxy key>`` to a
:class:`Principal` in ``scope["state"]["principal"]``.

With keys enabled the ``Authorization`` header is removed from the scope once checked, so the
proxy key can never be forwarded upstream (upstream keys then come from configuration). With
keys disabled (local mode) every request gets :data:`LOCAL_PRINCIPAL` and the client's header
is left as it is, to be forwarded as before.

Keyless mode refuses cross-origin browser requests (403): any web page could otherwise make a
visitor's browser POST to a local proxy (a ``text/plain`` body needs no CORS preflight) and
spend the operator's upstream key. A request whose ``Origin`` is ``null`` or names another
host than its ``Host`` is such a request; SDKs and curl send no ``Origin`` and pass, and so does
the playground page, served from the proxy itself.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from proxy.errors import to_openai_error

from ._errors import KeyStoreUnavailable, PermissionDenied, Unauthenticated
from ._keys import LOCAL_PRINCIPAL, KeyRecord, Principal, digest, parse_key, secret_matches
from ._store import KeyStore, KeyStoreError

logger = logging.getLogger("veriproxy.auth")

# Probes, metrics and the static playground page answer without a key.
DEFAULT_PUBLIC_PATHS: tuple[str, ...] = ("/healthz", "/readyz", "/metrics", "/ui", "/ui/review")
# Compared against when the key id is unknown, so unknown and wrong keys take the same time.
_DUMMY = KeyRecord(key_id="0" * 12, tenant="-", secret_sha256=digest("veriproxy-dummy"))


class AuthMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        store: KeyStore | None,
        *,
        public_paths: Iterable[str] = DEFAULT_PUBLIC_PATHS,
    ) -> None:
        """``store=None`` is the keyless local mode."""
        self.app = app
        self.store = store
        self.public_paths = frozenset(public_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.public_paths:
            await self.app(scope, receive, send)
            return
        if self.store is None:
            if _cross_origin(scope):
                denied = PermissionDenied(
                    "cross-origin browser requests need a proxy key (this proxy runs keyless)"
                )
                await to_openai_error(denied)(scope, receive, send)
                return
            scope.setdefault("state", {})["principal"] = LOCAL_PRINCIPAL
            await self.app(scope, receive, send)
            return
        try:
            principal = await self._authenticate(_bearer(scope))
        except (Unauthenticated, KeyStoreUnavailable) as exc:
            response = to_openai_error(exc)
            if isinstance(exc, Unauthenticated):
                response.headers["www-authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"authorization"]}
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _authenticate(self, token: str | None) -> Principal:
        assert self.store is not None
        if not token:
            raise Unauthenticated("missing proxy key: send it as 'Authorization: Bearer <key>'")
        parsed = parse_key(token)
        if parsed is None:
            raise Unauthenticated("invalid proxy key")
        key_id, secret = parsed
        try:
            record = await self.store.get(key_id)
        except KeyStoreError as exc:
            logger.error("key store error: %s", exc)
            raise KeyStoreUnavailable("the proxy's key store is unavailable; retry later") from None
        if not secret_matches(record or _DUMMY, secret) or record is None:
            raise Unauthenticated("invalid proxy key")
        if record.revoked:
            raise Unauthenticated("this proxy key has been revoked")
        return Principal.of(record)


def _cross_origin(scope: Scope) -> bool:
    headers = dict(scope["headers"])
    origin = headers.get(b"origin")
    if origin is None:
        return False
    host = headers.get(b"host", b"").decode("latin-1").lower()
    netloc = urlsplit(origin.decode("latin-1")).netloc.lower()
    return not netloc or netloc != host


def _bearer(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


def require_model(principal: Principal, model: str) -> None:
    """Raise 403 unless the caller's key may use ``model``."""
    if not principal.may_use_model(model):
        raise PermissionDenied(f"this proxy key may not use model '{model}'", param="model")


def require_policy(principal: Principal, policy: str) -> None:
    """Raise 403 unless the caller's key may choose ``policy``."""
    if not principal.may_use_policy(policy):
        raise PermissionDenied(f"this proxy key may not use policy '{policy}'", param="policy")


def require_role(principal: Principal, role: str) -> None:
    """Raise 403 unless the caller's key holds ``role`` (the keyless local mode holds none)."""
    if not principal.has_role(role):
        raise PermissionDenied(f"this needs a proxy key with the '{role}' role")
