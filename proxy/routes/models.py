"""``GET /v1/models``: the configured model names the caller's key may use, in OpenAI's list
format."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from proxy.auth import Principal


async def list_models(request: Request) -> JSONResponse:
    principal: Principal = request.state.principal
    names = [n for n in request.app.state.router.model_names if principal.may_use_model(n)]
    return JSONResponse(
        {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": 0, "owned_by": "veriproxy"}
                for name in names
            ],
        }
    )


ROUTES = [Route("/v1/models", list_models, methods=["GET"])]
