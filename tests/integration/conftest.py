"""Real servers for the integration suite: SeaweedFS (S3), tansu (Kafka), noida-db (Elasticsearch API).

Each server starts once per session on free loopback ports, from the packages `make setup`
installed, and is stopped by its PID at the end. Logs go to a session temp dir; a failing test
gets the tail of every server's log in its report. Every test under this folder is marked
`integration`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from scicustom.devstack.real_servers import (
    ElasticsearchServer,
    KafkaServer,
    S3Server,
    ServerProcess,
    start_noida_elasticsearch,
    start_seaweedfs,
    start_tansu,
)

_SERVERS = pytest.StashKey[list[ServerProcess]]()
_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.failed:
        for process in item.config.stash.get(_SERVERS, []):
            state = "running" if process.alive else f"exited with {process.popen.returncode}"
            report.sections.append((f"{process.name} ({state}) log {process.log_path}", process.log_tail()))
    return report


@pytest.fixture(scope="session")
def server_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("servers")


def _track(config: pytest.Config, process: ServerProcess) -> None:
    config.stash.setdefault(_SERVERS, []).append(process)


@pytest.fixture(scope="session")
def s3_server(server_dir: Path, pytestconfig: pytest.Config) -> Iterator[S3Server]:
    server = start_seaweedfs(server_dir)
    _track(pytestconfig, server.process)
    yield server
    server.process.stop()


@pytest.fixture(scope="session")
def kafka_server(server_dir: Path, pytestconfig: pytest.Config) -> Iterator[KafkaServer]:
    server = start_tansu(server_dir)
    _track(pytestconfig, server.process)
    yield server
    server.process.stop()


@pytest.fixture(scope="session")
def elasticsearch_server(server_dir: Path, pytestconfig: pytest.Config) -> Iterator[ElasticsearchServer]:
    server = start_noida_elasticsearch(server_dir)
    _track(pytestconfig, server.process)
    yield server
    server.process.stop()


@pytest.fixture
def unique_name() -> str:
    """A fresh lowercase name (valid as bucket, topic, group and index name)."""
    return f"t-{uuid.uuid4().hex[:12]}"
