"""``GET /v1/policies``: the policy names a request may ask for (the playground's picker), in
the list format of ``/v1/models``. Behind the same key as the rest of the API."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from policies import PolicyNotFound, PolicyStore


async def list_policies(request: Request) -> JSONResponse:
    store: PolicyStore | None = request.app.state.policies
    if store is None:  # verification is off: there is nothing to choose
        return JSONResponse({"object": "list", "data": [], "default": None})
    return JSONResponse({"object": "list", "data": _describe(store), "default": store.default})


def _describe(store: PolicyStore) -> list[dict[str, Any]]:
    out = []
    for name in store.names():
        try:
            policy = store.get(name)
        except PolicyNotFound:  # removed by a reload since names() was read
            continue
        out.append(
            {
                "id": policy.name,
                "object": "policy",
                "description": policy.description,
                "stream_mode": policy.stream_mode.value,
                "shadow": policy.shadow,
            }
        )
    return out


ROUTES = [Route("/v1/policies", list_policies, methods=["GET"])]
