"""One chat call through litellm, shared by the LLM judges and the LLM claim decomposer, and
the batching the judges share.

litellm is imported on first use (it takes seconds) and never fetches its remote model-price
list (``LITELLM_LOCAL_MODEL_COST_MAP``): verification must work offline and in tests.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

DEFAULT_TIMEOUT_S = 60.0
_In = TypeVar("_In")
_Out = TypeVar("_Out")


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """A litellm model name (``openai/gpt-4o-mini``, ``ollama/llama3``) and where to reach it."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S

    def complete(self, system: str, user: str) -> str:
        """The assistant's reply text at temperature 0. litellm's exceptions propagate.

        Synchronous, for worker threads. It drives litellm's async client in a loop of its own
        that is closed afterwards: litellm's sync path leaves an event loop open behind it."""
        return asyncio.run(self.acomplete(system, user))

    async def acomplete(self, system: str, user: str) -> str:
        """``complete`` for callers already on an event loop."""
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        response = await litellm.acompletion(
            model=self.model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=0,
            api_base=self.api_base,
            api_key=self.api_key,
            timeout=self.timeout_s,
        )
        return str(response.choices[0].message.content or "")


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
