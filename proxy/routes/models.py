"""``GET /v1/models``: the configured model names, in OpenAI's list format."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def list_models(request: Request) -> JSONResponse:
    names = request.app.state.router.model_names
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
