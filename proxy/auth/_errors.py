"""Authentication errors, as branches of the proxy's one exception tree (``proxy.errors``)."""

from __future__ import annotations

from proxy.errors import ProxyError


class Unauthenticated(ProxyError):
    """401: no proxy key, a malformed or unknown one, or a revoked one."""

    status = 401
    type = "invalid_request_error"
    code = "invalid_api_key"


class PermissionDenied(ProxyError):
    """403: a valid key asked for a model or policy it is not allowed."""

    status = 403
    type = "permission_error"
    code = "permission_denied"


class KeyStoreUnavailable(ProxyError):
    """503: the key store cannot be read; requests are refused, never let through."""

    status = 503
    type = "service_unavailable"
    code = "key_store_unavailable"
