"""``GET /v1/models`` and ``GET /v1/models/{id}``, in OpenAI's list format.

The list is the configured model names the caller's key may use, merged with the default
upstream's own list when unknown names reach it (``unknown_model: default``): every name a
client can send. A configured name is described by the proxy; any other id is asked upstream.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from proxy.auth import Principal
from proxy.errors import ModelNotFound
from proxy.passthrough import PassthroughService
from proxy.routes.passthrough import passthrough


def _ours(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "veriproxy"}


async def list_models(request: Request) -> JSONResponse:
    principal: Principal = request.state.principal
    service: PassthroughService = request.app.state.passthrough
    configured = request.app.state.router.model_names
    merged = {name: _ours(name) for name in configured}
    for model in await service.upstream_models():
        merged.setdefault(model["id"], model)
    data = [m for name, m in merged.items() if principal.may_use_model(name)]
    return JSONResponse({"object": "list", "data": data})


async def get_model(request: Request) -> Response:
    principal: Principal = request.state.principal
    name = request.path_params["model_id"]
    if not principal.may_use_model(name):
        raise ModelNotFound(f"The model '{name}' does not exist", param="model")
    if name in request.app.state.router.model_names:
        return JSONResponse(_ours(name))
    return await passthrough(request)


ROUTES = [
    Route("/v1/models", list_models, methods=["GET"]),
    Route("/v1/models/{model_id:path}", get_model, methods=["GET"]),
]
