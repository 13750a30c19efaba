"""What a stage worker tells Prometheus: how each record ended (ok or dead_letter) and how long it
took, the retries, and its consumer group's lag per partition.

Lag comes from consumers that can tell it without a broker round trip (`ReportsLag`: Kafka's
last fetched high watermark minus the position, the in-process bus's log length minus the
position) and is sampled after every poll. Partitions the consumer no longer owns (a rebalance
moved them) are dropped from the gauge, so two members never report the same partition for long.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from scicustom.telemetry.metrics import PlatformMetrics, process_metrics

log = logging.getLogger(__name__)

OK = "ok"
DEAD_LETTER = "dead_letter"


@runtime_checkable
class ReportsLag(Protocol):
    def lag(self) -> Mapping[tuple[str, int], int]:
        """Records behind the end of each owned (topic, partition) whose end is known."""
        ...


class StageMetrics:
    def __init__(self, stage: str, group: str, metrics: PlatformMetrics | None = None) -> None:
        self.stage = stage
        self.group = group
        self._metrics = metrics or process_metrics()
        self._lag_series: set[tuple[str, str]] = set()

    def finished(self, outcome: str, seconds: float) -> None:
        """One record done; call inside its consumer span, whose trace becomes the exemplar."""
        m = self._metrics
        m.stage_messages.labels(self.stage, outcome).inc()
        m.observe(m.stage_processing, seconds, self.stage)

    def retried(self) -> None:
        self._metrics.stage_retries.labels(self.stage).inc()

    def sample_lag(self, consumer: object) -> None:
        if not isinstance(consumer, ReportsLag):
            return
        try:
            lags = consumer.lag()
        except Exception:  # lag is an observation: it never stops the worker
            log.debug("worker %s: consumer lag not available", self.stage, exc_info=True)
            return
        gauge = self._metrics.consumer_lag
        series = {(topic, str(partition)): max(int(n), 0) for (topic, partition), n in lags.items()}
        for topic, partition in self._lag_series - series.keys():
            gauge.remove(topic, partition, self.group)
        for (topic, partition), n in series.items():
            gauge.labels(topic, partition, self.group).set(n)
        self._lag_series = set(series)

    def forget_lag(self) -> None:
        """The consumer left its group: its partitions are someone else's to report."""
        for topic, partition in self._lag_series:
            self._metrics.consumer_lag.remove(topic, partition, self.group)
        self._lag_series = set()
