"""``GET /v1/audit/{request_id}/withheld``: the sentences a policy redacted or blocked in one of
the caller's tenant's answers, with their own words and the rule that withheld each, read back
from the audit log (see :mod:`proxy.audit.review`).

Only a key with the ``reviewer`` role gets an answer (any other caller: 403, before anything is
looked up). A request of another tenant answers 404, as an unknown one does. ``request_id`` is
the ``X-Request-Id`` the proxy returned with the answer (a client may also choose it).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from proxy.audit.review import withheld_sentences
from proxy.auth import REVIEWER, Principal, require_role
from proxy.errors import ProxyError


class AuditRecordNotFound(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = "audit_record_not_found"


async def get_withheld(request: Request) -> JSONResponse:
    principal: Principal = request.state.principal
    require_role(principal, REVIEWER)
    request_id = request.path_params["request_id"]
    found = await withheld_sentences(
        request.app.state.shared.audit, request_id, principal.tenant, request.app.state.policies
    )
    if found is None:
        raise AuditRecordNotFound(
            "no audit record for this request id (unknown, too old to search, or no audit log "
            "is configured)",
            param="request_id",
        )
    body = {"object": "list", "request_id": request_id, "data": [w.to_dict() for w in found]}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


ROUTES = [Route("/v1/audit/{request_id}/withheld", get_withheld, methods=["GET"])]
