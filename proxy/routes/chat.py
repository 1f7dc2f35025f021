"""``POST /v1/chat/completions``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proxy.auth import Principal, require_model, require_policy
from proxy.chat_service import ChatService
from proxy.extensions import RequestContext
from proxy.limits import Limits, StreamSlots, check_request
from proxy.middleware import request_id_of, set_model_label
from proxy.protocol import forwardable_headers, parse_chat_request, read_body
from proxy.streaming import SSEResponse


async def chat_completions(request: Request) -> Response:
    state = request.app.state
    raw = await read_body(request, state.settings.max_body_bytes)
    chat, options = parse_chat_request(raw, request.headers)
    principal: Principal = request.state.principal
    require_model(principal, chat.model)
    if options.policy is not None:
        require_policy(principal, options.policy)
    limits: Limits = state.settings.limits
    check_request(chat.body, limits)
    set_model_label(request.scope, state.metrics.model_label(chat.model))
    ctx = RequestContext(
        request_id=request_id_of(request.scope),
        model=chat.model,
        stream=chat.stream,
        tenant=principal.tenant,
        key_policies=principal.allowed_policies,
        options=options,
    )
    service: ChatService = state.chat_service
    headers = forwardable_headers(request.headers)
    if not chat.stream:
        result = await service.complete(chat, ctx, headers)
        return Response(result.body, headers=dict(result.headers), media_type="application/json")
    slots: StreamSlots = state.stream_slots
    slot = slots.acquire(principal.key_id or principal.tenant)
    try:
        stream = await service.open_stream(chat, ctx, headers)
    except BaseException:
        slot.release()
        raise
    return SSEResponse(slot.hold(stream))


ROUTES = [Route("/v1/chat/completions", chat_completions, methods=["POST"])]
