"""The review queue's errors, each an OpenAI-shaped response (see :mod:`proxy.errors`)::

ProxyError
├── ReviewOff            404  no review queue is configured
├── ReviewItemNotFound   404  no such item for the caller's tenant
├── InvalidLabel         400  a verdict the protocol does not list, or a bad body
├── AlreadyLabelled      409  this reviewer labelled the item before (labels are final)
└── ReviewUnavailable    503  the store cannot be reached now
"""

from __future__ import annotations

from proxy.errors import InvalidRequest, ProxyError


class ReviewOff(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = "review_not_enabled"


class ReviewItemNotFound(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = "review_item_not_found"


class InvalidLabel(InvalidRequest):
    code = "invalid_review_label"


class AlreadyLabelled(ProxyError):
    status = 409
    type = "invalid_request_error"
    code = "review_already_labelled"


class ReviewUnavailable(ProxyError):
    status = 503
    type = "service_unavailable"
    code = "review_store_unavailable"
