"""``GET /v1/chat/completions/{id}/verification``: a stored verification report, for clients
that drop the ``verification`` field and the annotation chunks (see
:mod:`proxy.state.reports`). Behind the same key as the rest of the API; a caller only finds the
reports of its own tenant (another tenant's id answers 404, as an unknown one does)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from proxy.auth import Principal
from proxy.errors import ProxyError
from proxy.state.reports import ReportStore, report_body


class ReportNotFound(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = "report_not_found"


async def get_report(request: Request) -> JSONResponse:
    completion_id = request.path_params["completion_id"]
    principal: Principal = request.state.principal
    store: ReportStore = request.app.state.shared.reports
    report = await store.get(completion_id, principal.tenant)
    if report is None:
        raise ReportNotFound(
            "no verification report for this completion id (unknown, expired, or verification "
            "was off for it)",
            param="id",
        )
    return JSONResponse(report_body(completion_id, report))


ROUTES = [Route("/v1/chat/completions/{completion_id}/verification", get_report, methods=["GET"])]
