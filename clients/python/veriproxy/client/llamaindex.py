"""A LlamaIndex instrumentation event handler that puts each answer's report in its
``additional_kwargs["verification"]``.

LlamaIndex keeps the upstream's object in ``response.raw``, whose id (``chatcmpl-...``, in a
stream too) names the stored report; the handler fetches it when an LLM call ends::

    from llama_index.core.instrumentation import get_dispatcher
    get_dispatcher().add_event_handler(VerificationEventHandler(base_url=url, api_key=key))
    llm.chat(messages).additional_kwargs["verification"]
    *_, last = llm.stream_chat(messages); last.additional_kwargs["verification"]

A report that cannot be fetched (or a call whose ``raw`` holds no id) leaves ``verification``
out and sets ``additional_kwargs["verification_error"]`` (so does a call to an LLM that is not
behind the proxy: the handler looks up every LLM call the dispatcher reports). The handler is
synchronous (LlamaIndex dispatches events synchronously): in async code the report is fetched
with a short blocking call at the end of each answer.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMCompletionEndEvent

from veriproxy.client._reports import DEFAULT_TIMEOUT, ReportFetchError, fetch_report


class VerificationEventHandler(BaseEventHandler):
    base_url: str
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def class_name(cls) -> str:
        return "VeriproxyVerificationEventHandler"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if not isinstance(event, LLMChatEndEvent | LLMCompletionEndEvent):
            return
        response = event.response
        if response is None or "verification" in response.additional_kwargs:
            return
        report_id = _id_of(response.raw)
        if report_id is None:
            response.additional_kwargs["verification_error"] = "the answer carries no id"
            return
        try:
            report = fetch_report(
                self.base_url, report_id, api_key=self.api_key, timeout=self.timeout
            )
        except ReportFetchError as exc:
            response.additional_kwargs["verification_error"] = str(exc)
        else:
            response.additional_kwargs["verification"] = report


def _id_of(raw: object) -> str | None:
    value = raw.get("id") if isinstance(raw, dict) else getattr(raw, "id", None)
    return value if isinstance(value, str) and value else None
