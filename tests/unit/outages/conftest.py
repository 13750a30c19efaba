"""Re-exports the build-world fixtures of tests/unit/workers (filesystem store, in-memory bus)."""

from tests.unit.workers.conftest import ctx  # noqa: F401
