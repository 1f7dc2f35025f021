"""The proxy's side of the LLM judge cascade (:mod:`verifiers.judge`): which judge, its budget,
its cache and its metrics.

The judge is a name from ``models:`` (its upstream's address and key are reused, so the key is
configured once and never written anywhere else) or any litellm model string. Its token budget
per tenant and minute lives in the rate limiter (Redis when configured, so replicas share it);
its verdicts in the shared ``judge`` cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from proxy.config import UpstreamSettings
from proxy.metrics import Metrics
from proxy.state.cache import Cache
from proxy.state.ratelimit import RateBudget, RateLimiter
from verifiers import Verifier
from verifiers.judge import (
    Cascade,
    EscalationSettings,
    JudgeClient,
    LiteLLMJudgeClient,
    LLMEndpoint,
)

KEYLESS = "no-key"  # sent to an OpenAI-compatible judge upstream configured without a key


@dataclass(frozen=True, slots=True)
class JudgeResources:
    """What every cascade of this proxy shares, whichever policy's settings it runs with."""

    models: Mapping[str, UpstreamSettings]
    limiter: RateLimiter
    cache: Cache | None
    metrics: Metrics

    def cascade(self, settings: EscalationSettings, verifier: Verifier) -> Cascade | None:
        """The cascade ``settings`` ask for; None when escalation is off."""
        if not settings.enabled or settings.judge is None:
            return None
        budget = (
            TenantTokenBudget(self.limiter, settings.tokens_per_minute)
            if settings.tokens_per_minute is not None
            else None
        )
        return Cascade(
            settings,
            judge_client(settings.judge, self.models, settings.timeout_seconds),
            verifier.selector,
            nli=verifier.nli,
            budget=budget,
            cache=self.cache,
            observer=JudgeMetrics(self.metrics),
        )


def judge_client(
    name: str, models: Mapping[str, UpstreamSettings], timeout_seconds: float
) -> JudgeClient:
    """A client for ``name``: the upstream of ``models[name]`` when there is one (an
    OpenAI-compatible ``base_url`` or a litellm model), else ``name`` as a litellm model."""
    upstream = models.get(name)
    if upstream is None:
        return LiteLLMJudgeClient(LLMEndpoint(name, timeout_s=timeout_seconds))
    key = upstream.api_key.get() if upstream.api_key is not None else None
    base: str | None
    if upstream.base_url is not None:
        # litellm's OpenAI provider speaks to any OpenAI-compatible base URL; it insists on a
        # key, which a keyless upstream (a local server) ignores.
        model, base = f"openai/{upstream.model or name}", upstream.base_url
        key = key or KEYLESS
    else:
        assert upstream.litellm_model is not None  # one of the two is always set
        model, base = upstream.litellm_model, upstream.api_base
    endpoint = LLMEndpoint(model, api_base=base, api_key=key, timeout_s=timeout_seconds)
    return LiteLLMJudgeClient(endpoint, name=name)


class TenantTokenBudget:
    """Judge tokens per tenant and minute, counted by the proxy's rate limiter."""

    def __init__(self, limiter: RateLimiter, tokens_per_minute: int) -> None:
        self._limiter = limiter
        self._limits = RateBudget(tokens=tokens_per_minute)

    async def allows(self, tenant: str, tokens: int) -> bool:
        # Refused once the window's tokens are spent; a request may overshoot once, as chat
        # token limits do (the reply's size is known only afterwards).
        decision = await self._limiter.acquire(self._key(tenant), self._limits)
        return decision.allowed

    async def spend(self, tenant: str, tokens: int) -> None:
        await self._limiter.add_tokens(self._key(tenant), tokens, self._limits)

    @staticmethod
    def _key(tenant: str) -> str:
        return f"judge:{tenant}"


class JudgeMetrics:
    """The cascade's events as Prometheus series (``veriproxy_judge_*``)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def on_escalated(self, rule: str) -> None:
        self._metrics.judge_escalations.labels(rule).inc()

    def on_skipped(self, reason: str) -> None:
        self._metrics.judge_skipped.labels(reason).inc()

    def on_request(self, outcome: str, seconds: float, prompt: int, completion: int) -> None:
        self._metrics.judge_requests.labels(outcome).inc()
        self._metrics.judge_latency.observe(seconds)
        self._metrics.judge_tokens.labels("prompt").inc(prompt)
        self._metrics.judge_tokens.labels("completion").inc(completion)

    def on_verdict(self, outcome: str) -> None:
        self._metrics.judge_verdicts.labels(outcome).inc()
