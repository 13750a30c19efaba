"""The chaos suite: the real local servers and the cluster of test_cluster_build, then workers,
the broker and the object store killed or restarted mid-build. Every test here is marked `chaos`
and runs only when asked for (`make chaos`, i.e. `pytest -m chaos tests/chaos`): a plain `pytest`
(`make test`, CI) skips it, since twenty killed-and-restarted workers take many minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import (  # noqa: F401  the session's real servers
    elasticsearch_server,
    kafka_server,
    s3_server,
    server_dir,
    unique_name,
)
from tests.integration.test_cluster_build import cluster  # noqa: F401  one cluster per chaos module

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    asked = "chaos" in (config.getoption("markexpr", "") or "")
    for item in items:
        if _HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.chaos)
            if not asked:
                item.add_marker(pytest.mark.skip(reason="chaos suite: run `make chaos` (pytest -m chaos tests/chaos)"))
