"""Prometheus metrics, one registry per app (tests and embedders can run several apps).

Label values stay bounded: ``route`` is a known route path or ``other``, ``model`` a configured
model name or ``other`` -- never what a client typed. Features add their own families to
``app.state.metrics.registry``.

Families:

* ``veriproxy_requests_total{route, method, status, model}`` -- finished HTTP requests.
* ``veriproxy_request_duration_seconds{route, model}`` -- request start to last byte sent
  (for streams: the whole stream).
* ``veriproxy_upstream_first_byte_seconds{model, stream}`` -- upstream call to first chunk or
  full completion.
* ``veriproxy_streams_in_flight`` -- streams currently open to clients.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

OTHER = "other"
LATENCY_BUCKETS = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
)  # fmt: skip


class Metrics:
    def __init__(self, routes: Iterable[str], models: Iterable[str]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._routes = frozenset(routes)
        self._models = frozenset(models)
        self.requests = Counter(
            "veriproxy_requests_total",
            "Finished HTTP requests.",
            ["route", "method", "status", "model"],
            registry=self.registry,
        )
        self.duration = Histogram(
            "veriproxy_request_duration_seconds",
            "Request start to last byte sent (whole stream for streams).",
            ["route", "model"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.upstream_first_byte = Histogram(
            "veriproxy_upstream_first_byte_seconds",
            "Upstream call to its first chunk (stream) or full completion.",
            ["model", "stream"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.streams_in_flight = Gauge(
            "veriproxy_streams_in_flight",
            "Streams currently open to clients.",
            registry=self.registry,
        )

    def route_label(self, path: str) -> str:
        return path if path in self._routes else OTHER

    def model_label(self, model: str | None) -> str:
        return model if model in self._models else OTHER

    def render(self) -> bytes:
        return generate_latest(self.registry)
