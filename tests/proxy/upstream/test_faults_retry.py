"""Retry policy: which failures are retried, and how long to wait."""

from __future__ import annotations

import pytest

from proxy.errors import (
    UpstreamHTTPError,
    UpstreamProtocolError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from proxy.retry import RetryPolicy, backoff, is_retryable, with_retries

POLICY = RetryPolicy(max_attempts=3, backoff_seconds=1.0, max_backoff_seconds=8.0)


def _http(status: int, *headers: tuple[str, str]) -> UpstreamHTTPError:
    return UpstreamHTTPError(status, "x", headers=headers)


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_retryable_statuses(status: int) -> None:
    assert is_retryable(_http(status))


@pytest.mark.parametrize(
    "exc",
    [_http(400), _http(401), _http(500), UpstreamTimeout("t"), UpstreamProtocolError("p")],
)
def test_not_retryable(exc: Exception) -> None:
    assert not is_retryable(exc)


def test_connection_failure_is_retryable() -> None:
    assert is_retryable(UpstreamUnavailable("down"))


def test_backoff_grows_with_jitter_and_cap() -> None:
    for attempt, low, high in [(1, 0.5, 1.0), (2, 1.0, 2.0), (3, 2.0, 4.0), (6, 8.0, 8.0)]:
        wait = backoff(POLICY, attempt, _http(503))
        assert low <= wait <= high


def test_retry_after_wins_when_longer_and_is_capped() -> None:
    assert backoff(POLICY, 1, _http(429, ("retry-after", "3"))) == 3.0
    assert backoff(POLICY, 1, _http(429, ("retry-after-ms", "2500"))) == 2.5
    assert backoff(POLICY, 1, _http(429, ("retry-after", "120"))) == 8.0
    assert backoff(POLICY, 1, _http(429, ("retry-after", "Wed, 21 Oct 2015"))) <= 1.0


async def test_with_retries_gives_up_with_the_upstream_error() -> None:
    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise _http(429)

    with pytest.raises(UpstreamHTTPError) as info:
        await with_retries(failing, RetryPolicy(max_attempts=3, backoff_seconds=0.0))
    assert info.value.status == 429 and calls == 3
