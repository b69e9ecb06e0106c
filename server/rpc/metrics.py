"""What ``/metrics`` on the web port shows, in Prometheus's text format (prometheus-client).

Counters and histograms are updated as calls end; gauges (matches in memory,
waiting matches, open streams, whether the store works) are read when scraped.
Each server has a registry of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

disable_created_metrics()  # type: ignore[no-untyped-call]  # a series of creation times per label set says nothing an operator needs
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


class _Gauges(Collector):
    """Gauges read from the server's state at each scrape."""

    def __init__(self, read: Callable[[], dict[str, tuple[str, float]]]) -> None:
        self.read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for name, (documentation, value) in self.read().items():
            yield GaugeMetricFamily(name, documentation, value=value)


class Metrics:
    """The server's metrics."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self, gauges: Callable[[], dict[str, tuple[str, float]]]) -> None:
        self.registry = CollectorRegistry()
        self._calls = Counter(
            "mercado_rpc_calls",
            "RPCs ended, by method and status code",
            ["method", "code"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "mercado_rpc_duration_seconds",
            "Time to answer a unary RPC, or to open a stream, by method",
            ["method"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._throttled = Counter(
            "mercado_fair_use_refusals",
            "Calls refused by a rate limit or a cap (RESOURCE_EXHAUSTED with retry-after), by method",
            ["method"],
            registry=self.registry,
        )
        self._commits = Histogram(
            "mercado_store_commit_seconds",
            "Time of one group commit of the store",
            buckets=COMMIT_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_Gauges(gauges))
        # Label lookups take a lock each: the children are looked up once.
        self._call_children: dict[tuple[str, str], Counter] = {}
        self._latency_children: dict[str, Histogram] = {}

    def call(self, method: str, code: str, seconds: float | None) -> None:
        """One call ended with ``code``; ``seconds`` to answer it (None: not timed)."""
        counter = self._call_children.get((method, code))
        if counter is None:
            counter = self._call_children[method, code] = self._calls.labels(method, code)
        counter.inc()
        if seconds is not None:
            histogram = self._latency_children.get(method)
            if histogram is None:
                histogram = self._latency_children[method] = self._latency.labels(method)
            histogram.observe(seconds)

    def throttled(self, method: str) -> None:
        self._throttled.labels(method).inc()

    def commit(self, seconds: float) -> None:
        self._commits.observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
