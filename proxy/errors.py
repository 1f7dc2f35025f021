"""The proxy's exception tree and its one mapping onto OpenAI's error envelope.

::

    ProxyError                      (status, type, code, param)
    ├── InvalidRequest              400  invalid_request_error
    ├── PayloadTooLarge             413  invalid_request_error / request_too_large
    ├── ModelNotFound               404  invalid_request_error / model_not_found
    ├── ServiceUnavailable          503  service_unavailable
    ├── ClientDisconnected          499  client_closed_request (Starlette's ClientDisconnect)
    └── UpstreamError               an upstream call failed
        ├── UpstreamHTTPError       the upstream's own status, type, code and message
        ├── UpstreamTimeout         504  timeout
        ├── UpstreamUnavailable     502  upstream_unavailable (connect/protocol failure)
        ├── UpstreamProtocolError   502  upstream_error (malformed response or stream)
        └── UpstreamStreamError     502  upstream_error / upstream_stream_error (an error event)

``to_openai_error(exc)`` turns any exception into ``(status, {"error": {...}})``;
``install_error_handlers(app, secrets)`` registers it once with Starlette. Every message passes
through :func:`proxy.scrub.sanitise` first (configured keys, ``Bearer`` tokens and ``sk-``-style
keys become ``[redacted]``), and so do its ``param``, ``code`` and relayed headers; a message is
cut only after scrubbing. Unexpected exceptions become a generic 500 without internals.

``map_transport_errors()`` is the one place httpx's exceptions become ours.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from proxy.scrub import Scrubber
from proxy.scrub import sanitise as sanitise  # re-exported: logs and audit import it here

logger = logging.getLogger("veriproxy.errors")

# An upstream's non-JSON error body is kept up to this many characters; the message is cut to
# MAX_MESSAGE_CHARS only after scrubbing (a cut before it could leave a key's prefix behind).
MAX_ERROR_BODY_CHARS = 64 * 1024


class ProxyError(Exception):
    status: int = 500
    type: str = "server_error"
    code: str | None = None

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class InvalidRequest(ProxyError):
    status = 400
    type = "invalid_request_error"


class PayloadTooLarge(ProxyError):
    status = 413
    type = "invalid_request_error"
    code = "request_too_large"


class ModelNotFound(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = "model_not_found"


class ClientDisconnected(ProxyError):
    """The client went away before its request was read: nginx's 499 "client closed request".
    Counted under that status in the metrics and the access log, never logged as an error
    (nobody is left to receive the response)."""

    status = 499
    type = "client_closed_request"
    code = "client_disconnected"


class ServiceUnavailable(ProxyError):
    status = 503
    type = "service_unavailable"


class UpstreamError(ProxyError):
    status = 502
    type = "upstream_error"


class UpstreamHTTPError(UpstreamError):
    """The upstream answered with an error status; status and message are kept."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message, param=param)
        self.status = status
        self.type = type or ("invalid_request_error" if status < 500 else "upstream_error")
        self.code = code
        # Headers worth relaying to the client (retry-after, rate limits).
        self.headers = tuple(headers)

    @classmethod
    def from_body(
        cls, status: int, body: bytes, headers: Iterable[tuple[str, str]] = ()
    ) -> UpstreamHTTPError:
        """Read OpenAI's error envelope if the body is one; else keep a short text excerpt."""
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            err = data["error"]
            code = err.get("code")
            return cls(
                status,
                str(err.get("message") or f"upstream returned HTTP {status}"),
                type=err.get("type") if isinstance(err.get("type"), str) else None,
                code=str(code) if code is not None else None,
                param=err.get("param") if isinstance(err.get("param"), str) else None,
                headers=headers,
            )
        text = body[: MAX_ERROR_BODY_CHARS * 4].decode("utf-8", "replace").strip()
        text = text[:MAX_ERROR_BODY_CHARS]
        message = f"upstream returned HTTP {status}" + (f": {text}" if text else "")
        return cls(status, message, headers=headers)


class UpstreamStreamError(UpstreamError):
    """The upstream sent an error event in the middle of its stream."""

    code = "upstream_stream_error"

    @classmethod
    def from_event(cls, error: object) -> UpstreamStreamError:
        message = error.get("message") if isinstance(error, dict) else error
        return cls(f"upstream failed mid-stream: {message or 'no message'}")


class UpstreamTimeout(UpstreamError):
    status = 504
    type = "timeout"
    code = "upstream_timeout"


class UpstreamUnavailable(UpstreamError):
    status = 502
    type = "upstream_unavailable"
    code = "upstream_unavailable"


class UpstreamProtocolError(UpstreamError):
    status = 502
    type = "upstream_error"
    code = "upstream_protocol_error"


@contextmanager
def map_transport_errors() -> Iterator[None]:
    """Translate httpx's exceptions into the tree above (messages carry no URLs or keys)."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise UpstreamTimeout(f"upstream timed out ({type(exc).__name__})") from exc
    except httpx.RemoteProtocolError as exc:
        raise UpstreamUnavailable("upstream closed the connection unexpectedly") from exc
    except httpx.TransportError as exc:
        raise UpstreamUnavailable(f"could not reach upstream ({type(exc).__name__})") from exc


def error_body(exc: BaseException, secrets: Iterable[str] = ()) -> tuple[int, dict[str, Any]]:
    """``(status, {"error": {...}})`` for any exception: the one error mapping."""
    if isinstance(exc, ProxyError):
        status, type_, code, param, message = (
            exc.status,
            exc.type,
            exc.code,
            exc.param,
            exc.message,
        )
    elif isinstance(exc, HTTPException):
        status, param, message = exc.status_code, None, str(exc.detail)
        type_ = "invalid_request_error" if status < 500 else "server_error"
        code = "not_found" if status == 404 else None
    else:
        status, type_, code, param = 500, "server_error", "internal_error", None
        message = "internal server error"
    known = tuple(secrets)
    return status, {
        "error": {
            "message": sanitise(message, known),
            "type": sanitise(type_, known),
            # Upstream errors carry the upstream's own type, param and code: scrubbed too.
            "param": None if param is None else sanitise(param, known),
            "code": None if code is None else sanitise(code, known),
        }
    }


def to_openai_error(exc: BaseException, secrets: Iterable[str] = ()) -> Response:
    known = tuple(secrets)
    status, body = error_body(exc, known)
    headers = (
        dict(Scrubber(known).headers(exc.headers)) if isinstance(exc, UpstreamHTTPError) else None
    )
    return Response(
        json.dumps(body).encode(),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


def install_error_handlers(app: Starlette, secrets: Iterable[str] = ()) -> None:
    known = tuple(secrets)

    async def handle(request: Request, exc: Exception) -> Response:
        if not isinstance(exc, ProxyError | HTTPException):
            logger.error("unhandled error", exc_info=exc)
        return to_openai_error(exc, known)

    async def client_gone(request: Request, exc: Exception) -> Response:
        return to_openai_error(ClientDisconnected("the client closed the request"), known)

    app.add_exception_handler(ProxyError, handle)
    # A class of its own, so Starlette answers it without re-raising it to the server's log.
    app.add_exception_handler(ClientDisconnect, client_gone)
    app.add_exception_handler(HTTPException, handle)
    app.add_exception_handler(Exception, handle)
