"""A litellm callback that fetches the report of every answer litellm gets through the proxy.

litellm keeps the completion id (``response.id``, and each stream chunk's ``id``) but drops the
proxy's ``verification`` field from stream chunks. The callback runs when litellm logs a
success (after a stream's last chunk, in litellm's logging thread or task), fetches the report
by that id, and keeps it for the app::

    reports = VerificationLogger(base_url, api_key=key)
    litellm.callbacks = [reports]
    response = litellm.completion(model="openai/m", api_base=base_url, ...)
    reports.report(response.id)          # waits for litellm's callback, then the report
    await reports.areport(response.id)   # the same in async code (acompletion)

``on_report(response_id, report)`` is called as each report arrives (to forward it to an
observability tool). A report that cannot be fetched makes ``report()`` raise
:class:`ReportFetchError` with the reason. Reports are kept until ``report()`` takes them, the
``keep`` most recent at most (an app that only uses ``on_report`` never grows this).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from litellm.integrations.custom_logger import CustomLogger

from veriproxy.client._reports import (
    DEFAULT_TIMEOUT,
    ReportFetchError,
    afetch_report,
    fetch_report,
)

OnReport = Callable[[str, dict[str, Any]], None]


class VerificationLogger(CustomLogger):
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        on_report: OnReport | None = None,
        keep: int = 1000,
    ) -> None:
        super().__init__()
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.on_report = on_report
        self.keep = keep
        self._lock = threading.Lock()
        # One event per answer id, set when its result is in; both dropped, oldest first,
        # beyond ``keep``.
        self._done: OrderedDict[str, threading.Event] = OrderedDict()
        self._results: dict[str, dict[str, Any] | ReportFetchError] = {}
        self._claimed: set[str] = set()

    def report(self, response_id: str, wait: float = 60.0) -> dict[str, Any]:
        """The report of ``response_id``, once litellm has run this callback for it."""
        if not self._slot(response_id).wait(wait):
            raise ReportFetchError(f"litellm reported no success for {response_id!r}")
        with self._lock:
            result = self._results.pop(response_id)
            self._forget(response_id)
        if isinstance(result, ReportFetchError):
            raise result
        return result

    async def areport(self, response_id: str, wait: float = 60.0) -> dict[str, Any]:
        """:meth:`report` for async code: litellm logs an async call from a task on the app's
        event loop, which must keep running while this waits."""
        return await asyncio.to_thread(self.report, response_id, wait)

    # -- litellm's hooks ----------------------------------------------------------------------

    def log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        if (response_id := self._claim(response_obj)) is None:
            return
        try:
            report = fetch_report(
                self.base_url, response_id, api_key=self.api_key, timeout=self.timeout
            )
        except ReportFetchError as exc:
            self._settle(response_id, exc)
        else:
            self._settle(response_id, report)

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        if (response_id := self._claim(response_obj)) is None:
            return
        try:
            report = await afetch_report(
                self.base_url, response_id, api_key=self.api_key, timeout=self.timeout
            )
        except ReportFetchError as exc:
            self._settle(response_id, exc)
        else:
            self._settle(response_id, report)

    # -- bookkeeping --------------------------------------------------------------------------

    def _slot(self, response_id: str) -> threading.Event:
        with self._lock:
            event = self._done.setdefault(response_id, threading.Event())
            while len(self._done) > self.keep:
                self._forget(next(iter(self._done)))
            return event

    def _forget(self, response_id: str) -> None:
        self._done.pop(response_id, None)
        self._results.pop(response_id, None)
        self._claimed.discard(response_id)

    def _claim(self, response_obj: Any) -> str | None:
        """The answer's id, the first time only: litellm may log one call through both hooks."""
        response_id = getattr(response_obj, "id", None)
        if not isinstance(response_id, str) or not response_id:
            return None
        self._slot(response_id)
        with self._lock:
            if response_id in self._claimed:
                return None
            self._claimed.add(response_id)
        return response_id

    def _settle(self, response_id: str, result: dict[str, Any] | ReportFetchError) -> None:
        with self._lock:
            self._results[response_id] = result
        self._slot(response_id).set()
        if self.on_report is not None and isinstance(result, dict):
            self.on_report(response_id, result)
