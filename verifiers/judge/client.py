"""How the cascade reaches its judge: any object with ``model`` and ``ask``.

``LiteLLMJudgeClient`` covers every provider litellm knows and any OpenAI-compatible server
(``api_base``); the proxy builds one from a name in its ``models:``, reusing that upstream's
address and key. Failures to reach the judge raise ``JudgeFailure`` with a message that names
the error type only (provider messages may echo keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from verifiers._llm import LLMEndpoint, LLMReply, llm_failures
from verifiers.errors import JudgeFailure as JudgeFailure  # defined there, importable here


class JudgeClient(Protocol):
    model: str

    async def ask(self, system: str, user: str, schema: Mapping[str, Any]) -> LLMReply: ...


class LiteLLMJudgeClient:
    """``name``: how reports and metrics call the judge (the configured name), default the
    litellm model string."""

    def __init__(self, endpoint: LLMEndpoint, *, name: str | None = None) -> None:
        self.model = name or endpoint.model
        self._endpoint = endpoint

    async def ask(self, system: str, user: str, schema: Mapping[str, Any]) -> LLMReply:
        with llm_failures(JudgeFailure, f"judge {self.model}"):
            # No retries: the cascade's timeout is short and the bundled verdicts stand anyway.
            return await self._endpoint.areply(system, user, json_schema=schema, retries=0)
