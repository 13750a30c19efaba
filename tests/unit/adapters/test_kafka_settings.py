"""Replication and the poll interval reach the Kafka clients from the settings (no broker needed:
the clients connect lazily)."""

from __future__ import annotations

from pathlib import Path

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.bootstrap import Context
from scicustom.config import Settings


def test_cluster_bus_takes_replication_and_poll_interval_from_settings(tmp_path: Path) -> None:
    ctx = Context(Settings(profile="cluster", home=tmp_path, kafka_bootstrap="127.0.0.1:9",
                           kafka_replication_factor=3, kafka_max_poll_interval_ms=1_200_000))
    bus = ctx.event_bus
    inner = getattr(bus, "inner", bus)
    assert isinstance(inner, KafkaEventBus)
    assert (inner.replication_factor, inner.max_poll_interval_ms) == (3, 1_200_000)
