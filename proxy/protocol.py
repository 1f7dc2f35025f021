"""The HTTP boundary of ``POST /v1/chat/completions``: read, validate, split off our options.

Validation is deliberately narrow: ``model`` (non-empty string), ``messages`` (non-empty list of
objects with a string ``role``), ``stream`` (bool) and the fields the proxy enforces a limit on,
``max_tokens`` / ``max_completion_tokens`` (integers, strictly: no strings, floats or booleans).
Every other field -- tools, ``response_format``, ``n``, ``stop``, ``logprobs``, ``seed``,
``stream_options``, fields OpenAI adds next year -- passes through untouched, because a proxy
must forward what it does not know.

Per-request veriproxy options arrive either as a top-level ``veriproxy`` object in the body
(what ``extra_body={"veriproxy": {...}}`` in the OpenAI SDK produces) or as ``X-Veriproxy-*``
headers (``X-Veriproxy-Retrieve: false``, ``X-Veriproxy-Policy: strict``). The body wins over a
header. They are parsed once into :class:`RequestOptions`; the ``veriproxy`` key is removed
before the request goes upstream. The proxy's own options are typed fields; options this module
does not know land in ``RequestOptions.extra``, for a user's extension to read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError
from starlette.requests import Request

from proxy.errors import InvalidRequest, PayloadTooLarge
from proxy.scrub import without_surrogates

ModelT = TypeVar("ModelT", bound=BaseModel)

OPTIONS_KEY = "veriproxy"
# A JSON escape of a UTF-16 surrogate (high or low); only then is a body walked for lone ones.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
OPTION_HEADER_PREFIX = "x-veriproxy-"


class _Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str


class ChatCompletionRequestModel(BaseModel):
    """What we check of a chat completion request; everything else is forwarded as sent."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1)
    messages: list[_Message] = Field(min_length=1)
    stream: StrictBool = False
    # Enforced by the proxy (limits.max_tokens), so typed strictly: "100000", 1e9 or true must
    # not slip past the cap as a value the upstream reads differently.
    max_tokens: StrictInt | None = None
    max_completion_tokens: StrictInt | None = None


class _OptionsModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    retrieve: StrictBool | None = None
    verify: StrictBool | None = None
    policy: str | None = None
    documents: list[dict[str, Any]] | None = None
    include_evidence: StrictBool = False
    verification_events: StrictBool = False


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """Per-request veriproxy options; ``None`` means "not given, use the configured default"."""

    retrieve: bool | None = None
    verify: bool | None = None
    policy: str | None = None
    # Client-supplied documents to verify against instead of retrieved evidence, as sent.
    documents: tuple[Mapping[str, Any], ...] | None = None
    include_evidence: bool = False  # the completion (or the stream's report) lists the abstracts
    # Responses streams: our own response.verification.* events too (proxy.dialects).
    verification_events: bool = False
    # Options the proxy does not know, for a user's extension (never the proxy's own).
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A validated chat completion request, ready to forward.

    ``body`` is the JSON object to send upstream (without our ``veriproxy`` key). ``raw`` holds
    the client's exact bytes while ``body`` is unchanged from them, so the forwarder can send
    those without re-encoding; :meth:`with_body` drops it.
    """

    body: Mapping[str, Any]
    raw: bytes | None = None

    @property
    def model(self) -> str:
        return str(self.body["model"])

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream", False))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body["messages"])

    def with_body(self, **changes: Any) -> ChatRequest:
        """A copy with top-level fields replaced (e.g. ``messages=...`` or ``model=...``)."""
        return ChatRequest(body={**self.body, **changes}, raw=None)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes without buffering past it."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"request body exceeds the limit of {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"request body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def load_json(raw: bytes) -> tuple[Any, bool]:
    """A request body parsed, and whether lone surrogates had to be replaced in it.

    JSON can carry a lone UTF-16 surrogate (``"\\ud800"``, what JavaScript sends after cutting
    a string inside an emoji); no UTF-8 text can hold one. Each becomes U+FFFD here, at the
    boundary, so nothing inside (upstream request, retrieval, verifier, audit) meets it.
    """
    try:
        data = json.loads(raw)
        if not _SURROGATE_ESCAPE.search(raw):
            return data, False
        return _without_surrogates(data), True
    except RecursionError:
        raise InvalidRequest("request body is nested too deeply") from None
    except ValueError as exc:
        raise InvalidRequest(f"request body is not valid JSON: {exc.args[0]}") from None


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return without_surrogates(value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def load_object(raw: bytes) -> tuple[dict[str, Any], bool]:
    """A request body that must be a JSON object (see :func:`load_json`)."""
    data, cleaned = load_json(raw)
    if not isinstance(data, dict):
        raise InvalidRequest("request body must be a JSON object")
    return data, cleaned


def parse_body(raw: bytes, model: type[ModelT]) -> ModelT:
    """A JSON object body validated by ``model``; :class:`InvalidRequest` names the bad field."""
    data, _ = load_object(raw)
    return validated(model, data)


def validated(model: type[ModelT], data: object, prefix: str | None = None) -> ModelT:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc, prefix) from None


def parse_chat_request(
    raw: bytes, headers: Mapping[str, str]
) -> tuple[ChatRequest, RequestOptions]:
    """Validate a chat completion body; raise :class:`InvalidRequest` naming the bad field."""
    data, cleaned = load_object(raw)
    validated(ChatCompletionRequestModel, data)
    body_options = data.pop(OPTIONS_KEY, None)
    options = parse_options(body_options, headers)
    unchanged = body_options is None and not cleaned
    return ChatRequest(body=data, raw=raw if unchanged else None), options


def parse_options(body_options: object, headers: Mapping[str, str]) -> RequestOptions:
    merged: dict[str, Any] = {}
    for name, value in headers.items():
        lowered = name.lower()
        if lowered.startswith(OPTION_HEADER_PREFIX):
            key = lowered[len(OPTION_HEADER_PREFIX) :].replace("-", "_")
            merged[key] = _header_value(value)
    if body_options is not None:
        if not isinstance(body_options, dict):
            raise InvalidRequest("'veriproxy' must be an object", param=OPTIONS_KEY)
        merged.update(body_options)
    parsed = validated(_OptionsModel, merged, OPTIONS_KEY)
    return RequestOptions(
        retrieve=parsed.retrieve,
        verify=parsed.verify,
        policy=parsed.policy,
        documents=tuple(parsed.documents) if parsed.documents is not None else None,
        include_evidence=parsed.include_evidence,
        verification_events=parsed.verification_events,
        extra=MappingProxyType(dict(parsed.model_extra or {})),
    )


def _header_value(value: str) -> Any:
    """Headers carry text; read JSON scalars/objects so ``false`` and ``3`` mean what they say."""
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value


def _invalid(exc: ValidationError, prefix: str | None = None) -> InvalidRequest:
    err = exc.errors()[0]
    parts = [prefix] if prefix else []
    parts += [str(p) for p in err["loc"]]
    param = ".".join(parts) or None
    message = str(err["msg"])
    if err["type"] == "missing":
        message = f"missing required field '{param}'"
    else:
        message = f"invalid field '{param}': {message}"
    return InvalidRequest(message, param=param)


# Client headers that travel upstream. ``authorization`` is dropped by an upstream that has its
# own key configured; everything else (cookies, our X-Veriproxy-* options, hop-by-hop headers)
# stays here.
FORWARDED_HEADERS = ("authorization", "openai-organization", "openai-project", "openai-beta")


def forwardable_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: headers[name] for name in FORWARDED_HEADERS if name in headers}
