"""One chat call through litellm, shared by the LLM judge and the LLM claim decomposer.

litellm is imported on first use (it takes seconds) and never fetches its remote model-price
list (``LITELLM_LOCAL_MODEL_COST_MAP``): verification must work offline and in tests.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """A litellm model name (``openai/gpt-4o-mini``, ``ollama/llama3``) and where to reach it."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0

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
