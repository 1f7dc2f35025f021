"""Upstreams: where chat completions go, and which one a model name picks.

* :class:`Upstream` -- the interface (``complete`` and the ``stream`` context manager).
* :class:`OpenAICompatUpstream` -- any OpenAI-compatible base URL over the shared httpx transport.
* :class:`LiteLLMUpstream` -- every other provider through litellm, translated to OpenAI's
  wire format (litellm is imported on first use only).
* :class:`UpstreamRouter` -- model name -> upstream, with the unknown-model policy applied.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from proxy.config import Settings, UnknownModelPolicy, UpstreamSettings
from proxy.errors import ModelNotFound
from proxy.upstream._base import Completion, Upstream, relayed_headers
from proxy.upstream.litellm_client import LiteLLMUpstream
from proxy.upstream.openai_compat import OpenAICompatUpstream, build_transport

__all__ = [
    "Completion",
    "LiteLLMUpstream",
    "OpenAICompatUpstream",
    "Route",
    "Upstream",
    "UpstreamRouter",
    "build_transport",
    "relayed_headers",
]

OTHER_MODEL_LABEL = "other"


@dataclass(frozen=True, slots=True)
class Route:
    upstream: Upstream
    # Metric label: a configured model name, or "other" (label values stay bounded).
    label: str


class UpstreamRouter:
    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport) -> None:
        self._policy = settings.unknown_model
        self._routes = {
            name: Route(_build(upstream, settings, transport), name)
            for name, upstream in settings.models.items()
        }
        self._default = (
            Route(_build(settings.default_upstream, settings, transport), OTHER_MODEL_LABEL)
            if settings.default_upstream is not None
            else None
        )

    @property
    def model_names(self) -> tuple[str, ...]:
        return tuple(self._routes)

    def resolve(self, model: str) -> Route:
        route = self._routes.get(model)
        if route is not None:
            return route
        if self._policy is UnknownModelPolicy.DEFAULT and self._default is not None:
            return self._default
        raise ModelNotFound(f"The model '{model}' does not exist", param="model")

    @property
    def forwards_unknown(self) -> bool:
        """Whether a model name that is not configured still reaches the default upstream."""
        return self._policy is UnknownModelPolicy.DEFAULT and self._default is not None

    def unnamed(self) -> Route:
        """Where a request that names no model goes (file uploads, listings): the default
        upstream."""
        if self._default is None:
            raise ModelNotFound(
                "this route names no model and no default upstream is configured", param="model"
            )
        return self._default

    async def aclose(self) -> None:
        routes = [*self._routes.values(), *([self._default] if self._default else [])]
        for route in routes:
            await route.upstream.aclose()


def _build(
    upstream: UpstreamSettings, settings: Settings, transport: httpx.AsyncBaseTransport
) -> Upstream:
    if upstream.base_url is not None:
        return OpenAICompatUpstream(
            transport, upstream, settings.timeouts, max_event_bytes=settings.limits.max_event_bytes
        )
    return LiteLLMUpstream(
        upstream, settings.timeouts, max_event_bytes=settings.limits.max_event_bytes
    )
