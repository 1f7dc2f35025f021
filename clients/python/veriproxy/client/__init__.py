"""veriproxy's client side: reach a verification report from the app's own framework.

- :func:`fetch_report` / :func:`afetch_report`: the report of one answer, by the completion or
  response id, or by the ``X-Request-Id`` the request was sent with;
- ``veriproxy.client.langchain``: a LangChain callback handler;
- ``veriproxy.client.llamaindex``: a LlamaIndex instrumentation event handler;
- ``veriproxy.client.litellm``: a litellm callback.

Each framework module imports its framework; this one needs only httpx.
"""

from veriproxy.client._reports import (
    REQUEST_ID_HEADER,
    ReportFetchError,
    ReportNotFound,
    afetch_report,
    fetch_report,
    report_url,
)

__all__ = [
    "REQUEST_ID_HEADER",
    "ReportFetchError",
    "ReportNotFound",
    "afetch_report",
    "fetch_report",
    "report_url",
]
