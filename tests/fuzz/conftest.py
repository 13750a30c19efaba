"""Hypothesis profiles of the fuzz suite, chosen by SCICUSTOM_FUZZ_PROFILE:

  ci    (default) a small derandomized slice per target, so `make test` stays fast and repeatable
  fuzz  >= 10,000 generated cases per target, no deadline (`make fuzz`)

The profile is applied per test (tests/fuzz/fuzz_settings.py), not loaded globally, so the rest of
the suite keeps its own Hypothesis settings. A fuzz run also keeps per-target case counts in
.hypothesis/fuzz-counts.json as it goes (tests/fuzz/case_counts.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from tests.fuzz.case_counts import CaseCounts, start_counting
from tests.fuzz.fuzz_settings import profile_name

# Fuzz targets build servers, stores and files; none of that is a problem for the generated cases.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.function_scoped_fixture, HealthCheck.large_base_example]

settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("fuzz", max_examples=10_000, deadline=None, suppress_health_check=_QUIET,
                          print_blob=True)
_COUNTS = pytest.StashKey[CaseCounts]()


def pytest_configure(config: pytest.Config) -> None:
    if profile_name() == "fuzz":
        config.stash[_COUNTS] = start_counting()


def pytest_unconfigure(config: pytest.Config) -> None:
    counts = config.stash.get(_COUNTS, None)
    if counts is not None:
        counts.write()
