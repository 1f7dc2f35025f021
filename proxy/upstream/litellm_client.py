"""Non-OpenAI providers (``anthropic/...``, ``bedrock/...``, ...) through litellm.

litellm translates the OpenAI-shaped request to the provider's API and the answer back to
OpenAI's wire format (streaming included); we serialise its objects as OpenAI JSON. litellm is
imported on first use, since the import takes seconds and most deployments never need it; its
remote model-price list is never fetched (``LITELLM_LOCAL_MODEL_COST_MAP``).

Streamed, each event litellm yields is held to ``limits.max_event_bytes`` as the httpx path holds
each SSE event (measured as the JSON it stands for, since litellm parses the provider's bytes
itself): a longer one ends the stream with an ``upstream_protocol_error``.

litellm's exceptions map onto ours here: ``Timeout`` -> 504, ``APIConnectionError`` -> 502,
anything carrying a ``status_code`` -> that status with the provider's message.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from proxy.config import Timeouts, UpstreamSettings
from proxy.errors import (
    ProxyError,
    UpstreamError,
    UpstreamHTTPError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from proxy.protocol import ChatRequest
from proxy.streaming import DEFAULT_MAX_EVENT_BYTES, DONE, StreamChunk, event_too_large, json_bytes
from proxy.upstream._base import Completion
from verifiers import close_llm_clients

# Never reach out for litellm's model-price list at import: the proxy may run offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class LiteLLMUpstream:
    def __init__(
        self,
        settings: UpstreamSettings,
        timeouts: Timeouts,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        assert settings.litellm_model is not None
        self._settings = settings
        self._timeout = timeouts.read
        self._max_event_bytes = max_event_bytes

    def _kwargs(self, request: ChatRequest, headers: Mapping[str, str]) -> dict[str, Any]:
        return self._call_kwargs(request.body, headers)

    def _call_kwargs(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
        kwargs = dict(body)
        kwargs["model"] = self._settings.model or self._settings.litellm_model
        kwargs["timeout"] = self._timeout
        if self._settings.api_base is not None:
            kwargs["api_base"] = self._settings.api_base
        if self._settings.api_key is not None:
            kwargs["api_key"] = self._settings.api_key.get()
        elif headers.get("authorization", "").lower().startswith("bearer "):
            kwargs["api_key"] = headers["authorization"][7:].strip()
        return kwargs

    async def complete(self, request: ChatRequest, headers: Mapping[str, str]) -> Completion:
        litellm = _litellm()
        with _map_litellm_errors():
            response = await litellm.acompletion(**self._kwargs(request, headers))
        return Completion(raw=response.model_dump_json(exclude_none=True).encode())

    @asynccontextmanager
    async def stream(
        self, request: ChatRequest, headers: Mapping[str, str]
    ) -> AsyncIterator[AsyncIterator[StreamChunk]]:
        litellm = _litellm()
        kwargs = self._kwargs(request, headers)
        kwargs["stream"] = True
        with _map_litellm_errors():
            wrapper = await litellm.acompletion(**kwargs)
        try:
            yield _chunks(wrapper, self._max_event_bytes)
        finally:
            close = getattr(wrapper, "aclose", None)
            if close is not None:
                await close()

    async def responses(
        self, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> dict[str, Any]:
        """A Responses API call; litellm translates it to chat completions for providers that
        speak only those."""
        litellm = _litellm()
        with _map_litellm_errors():
            response = await litellm.aresponses(**self._call_kwargs(body, headers))
        return _dump(response)

    @asynccontextmanager
    async def stream_responses(
        self, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """The Responses API's stream events, as JSON objects."""
        litellm = _litellm()
        kwargs = {**self._call_kwargs(body, headers), "stream": True}
        with _map_litellm_errors():
            events = await litellm.aresponses(**kwargs)
        try:
            yield _response_events(events, self._max_event_bytes)
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()

    async def aclose(self) -> None:
        """litellm keeps its HTTP clients cached per event loop; close them with ours (on
        shutdown), so no connection outlives the loop."""
        await close_llm_clients()


async def _response_events(events: Any, max_event_bytes: int) -> AsyncIterator[dict[str, Any]]:
    with _map_litellm_errors():
        async for event in events:
            data = _dump(event)
            if len(json_bytes(data)) > max_event_bytes:
                raise event_too_large(max_event_bytes)
            yield data


def _dump(value: Any) -> dict[str, Any]:
    # litellm's models warn about their own loosely typed fields (usage) when dumped.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = value.model_dump(mode="json", exclude_none=True)
    return data if isinstance(data, dict) else {}


async def _chunks(wrapper: Any, max_event_bytes: int) -> AsyncIterator[StreamChunk]:
    with _map_litellm_errors():
        async for chunk in wrapper:
            event = StreamChunk.from_data(chunk.model_dump(exclude_none=True))
            if len(event.raw) > max_event_bytes:
                raise event_too_large(max_event_bytes)
            yield event
    # litellm ends its iterator where OpenAI sends [DONE]; restore the terminator.
    yield StreamChunk(raw=DONE, data_text="[DONE]")


def _litellm() -> Any:
    import litellm

    # Its banner-style hints ("Provider List: ...") go to stdout; our errors say enough.
    litellm.suppress_debug_info = True
    return litellm


@contextmanager
def _map_litellm_errors() -> Iterator[None]:
    litellm = _litellm()
    try:
        yield
    except ProxyError:
        raise
    except litellm.Timeout as exc:
        raise UpstreamTimeout("upstream timed out") from exc
    except litellm.APIConnectionError as exc:
        raise UpstreamUnavailable(f"could not reach upstream: {_message(exc)}") from exc
    except Exception as exc:  # litellm raises many types; anything with a status is HTTP.
        status = getattr(exc, "status_code", None)
        if isinstance(status, int) and 400 <= status <= 599:
            raise UpstreamHTTPError(status, _message(exc)) from exc
        raise UpstreamError(f"upstream call failed: {type(exc).__name__}") from exc


def _message(exc: BaseException) -> str:
    return str(getattr(exc, "message", None) or exc)
