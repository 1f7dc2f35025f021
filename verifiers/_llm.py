"""One chat call through litellm, shared by the LLM judges and the LLM claim decomposer, and
the batching the judges share.

litellm is imported on first use (it takes seconds) and never fetches its remote model-price
list (``LITELLM_LOCAL_MODEL_COST_MAP``): verification must work offline and in tests.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from verifiers.errors import VerifierError

DEFAULT_TIMEOUT_S = 60.0
_In = TypeVar("_In")
_Out = TypeVar("_Out")


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """A litellm model name (``openai/gpt-4o-mini``, ``ollama/llama3``) and where to reach it."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)  # never in a log line
    timeout_s: float = DEFAULT_TIMEOUT_S

    def complete(self, system: str, user: str) -> str:
        """The assistant's reply text at temperature 0. litellm's exceptions propagate.

        Synchronous, for worker threads. It drives litellm's async client in a loop of its own
        that is closed afterwards: litellm's sync path leaves an event loop open behind it."""
        return asyncio.run(self.acomplete(system, user))

    async def acomplete(self, system: str, user: str) -> str:
        """``complete`` for callers already on an event loop."""
        return (await self.areply(system, user)).content

    async def areply(
        self,
        system: str,
        user: str,
        *,
        json_schema: Mapping[str, Any] | None = None,
        retries: int | None = None,
    ) -> LLMReply:
        """The reply and its token usage. With ``json_schema`` the request asks for structured
        output (``response_format``); providers that cannot do it get the request without it
        (litellm's ``drop_params``), so callers parse the reply defensively either way.
        ``retries``: how often a failed call is retried (None: the provider client's default)."""
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        extra: dict[str, Any] = {}
        if retries is not None:
            extra["max_retries"] = retries
        if json_schema is not None:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": dict(json_schema), "strict": True},
            }
            extra["drop_params"] = True
        response = await litellm.acompletion(
            model=self.model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=0,
            api_base=self.api_base,
            api_key=self.api_key,
            timeout=self.timeout_s,
            **extra,
        )
        usage = getattr(response, "usage", None)
        return LLMReply(
            str(response.choices[0].message.content or ""),
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
        )


@dataclass(frozen=True, slots=True)
class LLMReply:
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@contextmanager
def llm_failures(error: type[VerifierError], what: str) -> Iterator[None]:
    """Turn whatever a litellm call raises into ``error`` naming ``what`` and the exception's
    type only: provider messages may echo keys or prompts."""
    try:
        yield
    except VerifierError:
        raise
    except Exception as exc:  # litellm raises many provider-specific types
        raise error(f"{what} failed: {type(exc).__name__}") from exc


async def close_llm_clients() -> None:
    """Close the HTTP clients litellm caches per event loop (a server calls this at shutdown,
    so no connection outlives its loop). Nothing to do when litellm was never used."""
    if "litellm" in sys.modules:
        import litellm

        module: Any = litellm  # the function is untyped and not re-exported in its stubs
        await module.close_litellm_async_clients()


class BatchedLLM:
    """Base of the LLM-backed judges: one endpoint, items sent ``batch_size`` at a time."""

    name = "llm"
    default_batch_size = 8

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        batch_size: int | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.model = model
        self.version = f"llm:{model}"
        self._endpoint = LLMEndpoint(model, api_base, api_key, timeout_s)
        self._batch_size = batch_size or self.default_batch_size

    def _in_batches(
        self, items: Sequence[_In], judge: Callable[[Sequence[_In]], list[_Out]]
    ) -> list[_Out]:
        out: list[_Out] = []
        for start in range(0, len(items), self._batch_size):
            out.extend(judge(items[start : start + self._batch_size]))
        return out
