"""`scicustom worker` loads the LLM client before its consumers join their groups (issue 17, part 5):
an autoscaled build worker's first build must not pay litellm's import on the shared cores."""

from __future__ import annotations

import argparse
import signal
import socket
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.commands import worker as worker_command
from scicustom.config import Settings
from scicustom.grpc_server import server as grpc_server
from scicustom.telemetry import tracing_setup
from scicustom.workers import stage_consumer
from scicustom.workers.liveness import Heartbeat
from scicustom.workers.stage_consumer import EXIT_DRAINED


class _RecordingContext:
    def __init__(self, events: list[str], **settings: Any) -> None:
        self.settings = Settings(grpc_port=0, metrics_port=0, **settings)
        self.event_bus = SimpleNamespace(close=lambda: events.append("bus closed"))
        self._events = events

    def warm_up_llm_client(self) -> None:
        self._events.append("warm-up")


@pytest.mark.parametrize(("stages", "expected"), [
    (["vote"], True), (["generate", "cutoff"], True), (["extract-qa"], True),
    (["embed"], False), (["tag", "index"], False), (["embed", "vote"], True),
])
def test_only_stages_that_call_llms_warm_up(stages: list[str], expected: bool) -> None:
    assert worker_command.calls_llms(stages) is expected


def test_warm_up_follows_the_settings() -> None:
    events: list[str] = []
    assert worker_command.warm_up(_RecordingContext(events), ["tag"]) is None  # type: ignore[arg-type]
    assert worker_command.warm_up(_RecordingContext(events, worker_warm_up=False), ["vote"]) is None  # type: ignore[arg-type]
    assert events == []
    seconds = worker_command.warm_up(_RecordingContext(events), ["vote"])  # type: ignore[arg-type]
    assert events == ["warm-up"] and seconds is not None and seconds >= 0


def test_the_worker_warms_up_before_any_consumer_joins(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []

    class _Consumer:
        def __init__(self, bus: Any, topics: Any, handler: Any, options: Any) -> None:
            self.stage = handler.stage
            self.heartbeat = Heartbeat()
            events.append(f"consumer {self.stage}")

        def run(self, stop: Any) -> int:
            return EXIT_DRAINED

    monkeypatch.setattr(stage_consumer, "StageWorker", _Consumer)
    # Process-wide state the command sets up for a real worker stays untouched in the test process.
    monkeypatch.setattr(signal, "signal", lambda signum, handler: None)
    monkeypatch.setattr(grpc_server, "dump_stacks_on_sigusr1", lambda: None)
    monkeypatch.setattr(tracing_setup, "configure_tracing", lambda name: None)
    monkeypatch.setattr(tracing_setup, "shutdown_tracing", lambda: None)
    monkeypatch.setattr(worker_command, "stage_handlers",
                        lambda ctx, stages: [SimpleNamespace(stage=s) for s in stages])
    code = worker_command.run_workers(argparse.Namespace(stages=["vote", "cutoff"], health_port=0),
                                      _RecordingContext(events))  # type: ignore[arg-type]
    assert code == EXIT_DRAINED
    assert events == ["warm-up", "consumer vote", "consumer cutoff", "bus closed"]


def test_litellm_warm_up_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the warm-up opened a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    LiteLLMAdapter.warm_up()
    assert "litellm" in sys.modules and "openai.resources.chat" in sys.modules
