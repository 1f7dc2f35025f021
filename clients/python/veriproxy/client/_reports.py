"""``GET {base_url}/chat/completions/{id}/verification``: the stored report of one answer.

The proxy stores each verified answer's report under its completion (or response) id and under
the request's ``X-Request-Id``, for the caller's tenant only, before the client gets the last
byte of a stream. A missing report is :class:`ReportNotFound`; any other failure is
:class:`ReportFetchError`: never an empty report that could read as "nothing was flagged".
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

REQUEST_ID_HEADER = "X-Request-Id"
DEFAULT_TIMEOUT = 10.0


class ReportFetchError(RuntimeError):
    """The report could not be fetched (transport error, auth, a non-JSON answer...)."""


class ReportNotFound(ReportFetchError):
    """No report under that id for this key: not verified, expired, or another tenant's."""


def report_url(base_url: str, report_id: str) -> str:
    """``base_url`` as given to the openai SDK (``http://proxy:8080/v1``)."""
    return f"{base_url.rstrip('/')}/chat/completions/{quote(report_id, safe='')}/verification"


def fetch_report(
    base_url: str,
    report_id: str,
    *,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    client: httpx.Client | None = None,
) -> dict[str, Any]:
    """The report (the ``verification`` object) stored under ``report_id``."""
    request = _request(base_url, report_id, api_key)
    try:
        if client is not None:
            response = client.get(request.url, headers=request.headers, timeout=timeout)
        else:
            with httpx.Client(timeout=timeout) as own:
                response = own.get(request.url, headers=request.headers)
    except httpx.HTTPError as exc:
        raise ReportFetchError(f"report {report_id!r}: {type(exc).__name__}: {exc}") from exc
    return _report(response, report_id)


async def afetch_report(
    base_url: str,
    report_id: str,
    *,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    client: httpx.AsyncClient | None = None,
) -> dict[str, Any]:
    """:func:`fetch_report` for async code."""
    request = _request(base_url, report_id, api_key)
    try:
        if client is not None:
            response = await client.get(request.url, headers=request.headers, timeout=timeout)
        else:
            async with httpx.AsyncClient(timeout=timeout) as own:
                response = await own.get(request.url, headers=request.headers)
    except httpx.HTTPError as exc:
        raise ReportFetchError(f"report {report_id!r}: {type(exc).__name__}: {exc}") from exc
    return _report(response, report_id)


def _request(base_url: str, report_id: str, api_key: str | None) -> httpx.Request:
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    return httpx.Request("GET", report_url(base_url, report_id), headers=headers)


def _report(response: httpx.Response, report_id: str) -> dict[str, Any]:
    if response.status_code == 404:
        raise ReportNotFound(f"no report stored under {report_id!r}")
    if response.status_code != 200:
        raise ReportFetchError(f"report {report_id!r}: HTTP {response.status_code}")
    try:
        report = response.json()["verification"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ReportFetchError(f"report {report_id!r}: not a report body") from exc
    if not isinstance(report, dict):
        raise ReportFetchError(f"report {report_id!r}: not a report body")
    return report
