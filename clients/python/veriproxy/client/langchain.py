"""A LangChain callback handler that puts each answer's report in its ``response_metadata``.

LangChain keeps neither the proxy's ``verification`` field nor, in a stream, the completion id;
so the handler names each run's request itself (``X-Request-Id: lc-<run id>``, added by the
httpx client it hands out) and fetches the report by that name when the answer is complete::

    handler = VerificationCallbackHandler(base_url, api_key=key)
    llm = ChatOpenAI(base_url=base_url, api_key=key, callbacks=[handler],
                     http_client=handler.http_client(),
                     http_async_client=handler.http_async_client())
    llm.invoke(q).response_metadata["verification"]        # the report
    sum(llm.stream(q)).response_metadata["verification"]   # in the stream's last chunk

A report that cannot be fetched leaves ``verification`` out and sets
``response_metadata["verification_error"]`` instead.
"""

from __future__ import annotations

import contextvars
from typing import Any
from uuid import UUID

import httpx
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    GenerationChunk,
    LLMResult,
)

from veriproxy.client._reports import (
    DEFAULT_TIMEOUT,
    REQUEST_ID_HEADER,
    ReportFetchError,
    afetch_report,
    fetch_report,
)

# The request id of the run being sent. Set by the handler, which runs inline (same thread, or
# same task in async code) just before the model call, and read by the httpx request hook.
_REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "veriproxy_request_id", default=None
)


Token = str | list[str | dict[str, Any]]
AnyChunk = GenerationChunk | ChatGenerationChunk | None


def request_id_of(run_id: UUID) -> str:
    return f"lc-{run_id}"


class _Tagging:
    """What both handlers share: tagging requests and deciding where a report goes."""

    run_inline = True  # the model call must see the request id this handler sets

    def __init__(
        self, base_url: str, *, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout

    def http_client(self, **kwargs: Any) -> httpx.Client:
        """An httpx client (for ``ChatOpenAI(http_client=...)``) that names each request."""
        return httpx.Client(event_hooks={"request": [_tag]}, **kwargs)

    def http_async_client(self, **kwargs: Any) -> httpx.AsyncClient:
        """The same for ``ChatOpenAI(http_async_client=...)``."""
        return httpx.AsyncClient(event_hooks={"request": [_atag]}, **kwargs)

    def _start(self, run_id: UUID) -> None:
        _REQUEST_ID.set(request_id_of(run_id))


def _tag(request: httpx.Request) -> None:
    request_id = _REQUEST_ID.get()
    if request_id is not None and REQUEST_ID_HEADER not in request.headers:
        request.headers[REQUEST_ID_HEADER] = request_id


async def _atag(request: httpx.Request) -> None:
    _tag(request)


def _last_chunk(chunk: AnyChunk) -> BaseMessage | None:
    """The message of LangChain's closing stream chunk (``chunk_position="last"``): sent after
    the upstream stream ended, so its report is stored by then; it reaches the app's sum."""
    if (
        isinstance(chunk, ChatGenerationChunk)
        and getattr(chunk.message, "chunk_position", None) == "last"
    ):
        return chunk.message
    return None


def _unreported(response: LLMResult) -> list[BaseMessage]:
    return [
        g.message
        for gens in response.generations
        for g in gens
        if isinstance(g, ChatGeneration) and "verification" not in g.message.response_metadata
    ]


def _attach(message: BaseMessage, report: dict[str, Any] | None, error: str | None) -> None:
    if report is not None:
        message.response_metadata["verification"] = report
    else:
        message.response_metadata["verification_error"] = error


class VerificationCallbackHandler(_Tagging, BaseCallbackHandler):
    """For ``invoke`` / ``stream`` / ``batch`` (sync code)."""

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        self._start(run_id)

    def on_llm_new_token(
        self, token: Token, *, chunk: AnyChunk = None, run_id: UUID, **kwargs: Any
    ) -> None:
        if (message := _last_chunk(chunk)) is not None:
            self._fill(message, run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        for message in _unreported(response):
            self._fill(message, run_id)

    def _fill(self, message: BaseMessage, run_id: UUID) -> None:
        try:
            report = fetch_report(
                self.base_url, request_id_of(run_id), api_key=self.api_key, timeout=self.timeout
            )
        except ReportFetchError as exc:
            _attach(message, None, str(exc))
        else:
            _attach(message, report, None)


class AsyncVerificationCallbackHandler(_Tagging, AsyncCallbackHandler):
    """For ``ainvoke`` / ``astream`` (async code): the report is fetched without blocking."""

    async def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        self._start(run_id)

    async def on_llm_new_token(
        self, token: Token, *, chunk: AnyChunk = None, run_id: UUID, **kwargs: Any
    ) -> None:
        if (message := _last_chunk(chunk)) is not None:
            await self._fill(message, run_id)

    async def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        for message in _unreported(response):
            await self._fill(message, run_id)

    async def _fill(self, message: BaseMessage, run_id: UUID) -> None:
        try:
            report = await afetch_report(
                self.base_url, request_id_of(run_id), api_key=self.api_key, timeout=self.timeout
            )
        except ReportFetchError as exc:
            _attach(message, None, str(exc))
        else:
            _attach(message, report, None)
