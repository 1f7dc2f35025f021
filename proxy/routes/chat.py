"""``POST /v1/chat/completions``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proxy.chat_service import ChatService
from proxy.extensions import RequestContext
from proxy.middleware import request_id_of, set_model_label
from proxy.protocol import forwardable_headers, parse_chat_request, read_body
from proxy.streaming import SSEResponse


async def chat_completions(request: Request) -> Response:
    state = request.app.state
    raw = await read_body(request, state.settings.max_body_bytes)
    chat, options = parse_chat_request(raw, request.headers)
    set_model_label(request.scope, state.metrics.model_label(chat.model))
    ctx = RequestContext(
        request_id=request_id_of(request.scope),
        model=chat.model,
        stream=chat.stream,
        options=options,
    )
    service: ChatService = state.chat_service
    headers = forwardable_headers(request.headers)
    if chat.stream:
        return SSEResponse(await service.open_stream(chat, ctx, headers))
    result = await service.complete(chat, ctx, headers)
    return Response(result.body, headers=dict(result.headers), media_type="application/json")


ROUTES = [Route("/v1/chat/completions", chat_completions, methods=["POST"])]
