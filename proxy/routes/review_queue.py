"""The review queue's API, for keys with the ``reviewer`` role (anyone else: 403), each
scoped to the key's tenant (see :mod:`proxy.review`):

* ``GET /v1/review/items?limit=N``: items of the tenant this key has not labelled yet and that
  fewer than ``review.reviewers_per_item`` reviewers have labelled, oldest first;
* ``POST /v1/review/items/{item_id}/labels`` with ``{"verdict": ..., "note": ...}``: this
  reviewer's verdict on the item (201; 409 if this key labelled it before);
* ``GET /v1/review/summary``: how many items are labelled and how often two reviewers agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from proxy.auth import REVIEWER, Principal, require_role
from proxy.errors import InvalidRequest
from proxy.protocol import parse_body, read_body
from proxy.review.errors import ReviewOff
from proxy.review.items import MAX_NOTE_CHARS

if TYPE_CHECKING:
    from proxy.review.queue import ReviewQueue

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
NO_STORE = {"Cache-Control": "no-store"}


class LabelModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: str = Field(min_length=1)
    note: str = Field(default="", max_length=MAX_NOTE_CHARS)


def _reviewer(request: Request) -> tuple[ReviewQueue, Principal, str]:
    principal: Principal = request.state.principal
    require_role(principal, REVIEWER)
    queue: ReviewQueue | None = request.app.state.shared.review
    if queue is None:
        raise ReviewOff("no review queue is configured (review.enabled)")
    # A reviewer role is only ever granted to a stored key, which has an id.
    return queue, principal, principal.key_id or ""


async def list_items(request: Request) -> JSONResponse:
    queue, principal, reviewer = _reviewer(request)
    try:
        limit = int(request.query_params.get("limit", DEFAULT_LIMIT))
    except ValueError:
        raise InvalidRequest("limit must be an integer", param="limit") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit must be between 1 and {MAX_LIMIT}", param="limit")
    found = await queue.pending(principal.tenant, reviewer, limit)
    body = {
        "object": "list",
        "data": [item.to_dict() for item in found],
        "reviewers_per_item": queue.settings.reviewers_per_item,
    }
    return JSONResponse(body, headers=NO_STORE)


async def add_label(request: Request) -> JSONResponse:
    queue, principal, reviewer = _reviewer(request)
    try:
        item_id = int(request.path_params["item_id"])
    except ValueError:
        raise InvalidRequest("item_id must be an integer", param="item_id") from None
    body = parse_body(
        await read_body(request, request.app.state.settings.max_body_bytes), LabelModel
    )
    label = await queue.label(principal.tenant, reviewer, item_id, body.verdict, body.note)
    out = {
        "object": "review.label",
        "item_id": label.item_id,
        "verdict": label.verdict,
        "correct": label.correct,
        "note": label.note,
        "created": label.time,
    }
    return JSONResponse(out, status_code=201, headers=NO_STORE)


async def summary(request: Request) -> JSONResponse:
    queue, principal, _ = _reviewer(request)
    found = await queue.summary(principal.tenant)
    body = {
        "object": "review.summary",
        "labelled": found.labelled,
        "agreement": {
            "items": found.agreement.items,
            "agreed": found.agreement.agreed,
            "kappa": found.agreement.kappa,
        },
    }
    return JSONResponse(body, headers=NO_STORE)


ROUTES = [
    Route("/v1/review/items", list_items, methods=["GET"]),
    Route("/v1/review/items/{item_id}/labels", add_label, methods=["POST"]),
    Route("/v1/review/summary", summary, methods=["GET"]),
]
