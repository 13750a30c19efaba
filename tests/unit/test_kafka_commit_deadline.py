"""KafkaBusConsumer.commit: flush first, then commit under the bus's deadline; a missed deadline or
a rebalance is logged and dropped (the records are redelivered or a later commit covers them)."""

from __future__ import annotations

import logging

import pytest
from kafka.errors import CommitFailedError, KafkaTimeoutError

from scicustom.adapters.kafka_bus import KafkaBusConsumer, KafkaEventBus


class _Client:
    def __init__(self, error: Exception | None) -> None:
        self.error = error
        self.timeouts: list[int | None] = []

    def commit(self, timeout_ms: int | None = None) -> None:
        self.timeouts.append(timeout_ms)
        if self.error is not None:
            raise self.error


@pytest.mark.parametrize("error", [None, KafkaTimeoutError("coordinator unreachable"), CommitFailedError("rebalanced")])
def test_commit_has_a_deadline_and_survives_a_missed_one(error, caplog):
    bus = KafkaEventBus("127.0.0.1:1", commit_timeout_s=2.5)  # nothing is sent, so nothing connects
    client = _Client(error)
    with caplog.at_level(logging.WARNING, logger="scicustom.adapters.kafka_bus"):
        KafkaBusConsumer(bus, client).commit()  # type: ignore[arg-type]
    assert client.timeouts == [2500]
    assert (len(caplog.records) == 1) is (error is not None)


def test_other_commit_errors_still_raise():
    with pytest.raises(RuntimeError, match="broken"):
        KafkaBusConsumer(KafkaEventBus("127.0.0.1:1"), _Client(RuntimeError("broken"))).commit()  # type: ignore[arg-type]
