"""The active fuzz profile (tests/fuzz/conftest.py registers them) as a settings decorator."""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE_ENV = "SCICUSTOM_FUZZ_PROFILE"
PROFILES = ("ci", "fuzz")


def profile_name() -> str:
    name = os.environ.get(PROFILE_ENV, "ci")
    if name not in PROFILES:
        raise ValueError(f"{PROFILE_ENV}={name!r}: choose one of {', '.join(PROFILES)}")
    return name


def fuzzed(ci_examples: int | None = None) -> settings:
    """`@fuzzed()` on a @given test: the active profile. `ci_examples` shrinks the CI slice of a
    target whose every case is slow (a real paper parsed whole); the fuzz profile keeps its count."""
    profile = settings.get_profile(profile_name())
    if ci_examples is not None and profile_name() == "ci":
        return settings(profile, max_examples=ci_examples)
    return settings(profile)
