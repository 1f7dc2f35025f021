"""The interface every upstream implements, and the values it returns."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from proxy.errors import UpstreamProtocolError
from proxy.protocol import ChatRequest
from proxy.streaming import StreamChunk

# Response headers worth relaying to the client: the SDK's retry logic reads these.
RELAYED_HEADERS = ("retry-after", "retry-after-ms", "openai-processing-ms")
RELAYED_PREFIXES = ("x-ratelimit-",)


def relayed_headers(headers: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, value)
        for name, value in headers.items()
        if name.lower() in RELAYED_HEADERS or name.lower().startswith(RELAYED_PREFIXES)
    )


@dataclass(frozen=True)
class Completion:
    """A non-streaming completion: the upstream's exact bytes, parsed on demand."""

    raw: bytes
    headers: tuple[tuple[str, str], ...] = field(default=())

    @cached_property
    def data(self) -> dict[str, Any]:
        try:
            value = json.loads(self.raw)
        except ValueError:
            raise UpstreamProtocolError("upstream returned a body that is not JSON") from None
        if not isinstance(value, dict):
            raise UpstreamProtocolError("upstream returned a body that is not a JSON object")
        return value


class Upstream(Protocol):
    """One place chat completions can be sent.

    ``headers`` are the client headers that may travel upstream (``authorization`` included
    only when the upstream has no configured key). ``stream`` is an async context manager so
    the upstream response is always closed, whether the stream ends, fails or is cancelled;
    errors before the first chunk are raised on entry (so the client still gets an HTTP error
    status), errors during iteration as :class:`proxy.errors.UpstreamError`.
    """

    async def complete(self, request: ChatRequest, headers: Mapping[str, str]) -> Completion: ...

    def stream(
        self, request: ChatRequest, headers: Mapping[str, str]
    ) -> AbstractAsyncContextManager[AsyncIterator[StreamChunk]]: ...

    async def aclose(self) -> None: ...
