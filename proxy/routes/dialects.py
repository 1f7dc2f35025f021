"""``POST /v1/completions`` (legacy) and ``POST /v1/responses``, verified through a chat view
(see :mod:`proxy.dialect_service`)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proxy.auth import Principal, require_model, require_policy
from proxy.dialect_service import DialectCall, DialectService
from proxy.dialects import CompletionsDialect, Dialect, ResponsesDialect
from proxy.errors import InvalidRequest
from proxy.extensions import RequestContext
from proxy.limits import (
    Limits,
    StreamSlots,
    check_completions_request,
    check_responses_request,
)
from proxy.middleware import request_id_of, set_model_label
from proxy.protocol import (
    OPTIONS_KEY,
    forwardable_headers,
    load_object,
    parse_options,
    read_body,
)
from proxy.streaming import SSEResponse


async def completions(request: Request) -> Response:
    return await _serve(request, CompletionsDialect())


async def responses(request: Request) -> Response:
    return await _serve(request, ResponsesDialect())


async def _serve(request: Request, dialect: Dialect) -> Response:
    state = request.app.state
    body = _body(await read_body(request, state.settings.max_body_bytes))
    options = parse_options(body.pop(OPTIONS_KEY, None), request.headers)
    model, stream = body["model"], body.get("stream") is True
    principal: Principal = request.state.principal
    require_model(principal, model)
    if options.policy is not None:
        require_policy(principal, options.policy)
    limits: Limits = state.settings.limits
    if isinstance(dialect, CompletionsDialect):
        check_completions_request(body, limits)
    else:
        check_responses_request(body, limits)
    set_model_label(request.scope, state.metrics.model_label(model))
    route = state.metrics.route_label(request.url.path)
    ctx = RequestContext(
        request_id=request_id_of(request.scope),
        model=model,
        stream=stream,
        tenant=principal.tenant,
        route=route,
        key_policies=principal.allowed_policies,
        options=options,
    )
    call = DialectCall(
        dialect,
        body,
        ctx,
        forwardable_headers(request.headers),
        route,
    )
    service: DialectService = state.dialects
    if stream:
        slots: StreamSlots = state.stream_slots
        slot = slots.acquire(principal.key_id or principal.tenant)
        try:
            events = await service.open_stream(call)
        except BaseException:
            slot.release()
            raise
        return SSEResponse(slot.hold(events))  # type: ignore[arg-type]
    answer = await service.complete(call)
    return Response(answer.body, headers=answer.headers, media_type="application/json")


def _body(raw: bytes) -> dict[str, Any]:
    data, _ = load_object(raw)
    if not isinstance(data.get("model"), str) or not data["model"]:
        raise InvalidRequest("missing required field 'model'", param="model")
    if not isinstance(data.get("stream", False), bool):
        raise InvalidRequest("invalid field 'stream': must be a boolean", param="stream")
    return data


ROUTES = [
    Route("/v1/completions", completions, methods=["POST"]),
    Route("/v1/responses", responses, methods=["POST"]),
]
