"""What an export says about the build it came from, read from the build's config.json and
voting.json: the requirement, the voted units, how it was built (versions, parameters, seed)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput


@dataclass(frozen=True)
class VotedUnit:
    name: str
    consensus_rank: float | None   # the jury's mean rank; None where the file gives none


@dataclass(frozen=True)
class BuildFacts:
    requirement_name: str
    domain: str
    description: str
    scicustom_version: str
    params: dict[str, Any]        # method, k1, k2, proxy_samples, seed, ...
    corpus: dict[str, Any]        # corpus, tagger, model versions
    judges: dict[str, Any]
    coverage: dict[str, Any]
    validity: dict[str, Any]
    voted_units: tuple[VotedUnit, ...]   # empty for the embedding baselines, which do not vote
    benchmark_sha256: str

    @property
    def task_name(self) -> str:
        """An identifier for the requirement (lm-eval task, dataset name): scicustom_<name>."""
        slug = re.sub(r"[^a-z0-9]+", "_", self.requirement_name.lower()).strip("_")
        return f"scicustom_{slug or 'benchmark'}"


def _object(document: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    value = document.get(key, {})
    if not isinstance(value, dict):
        raise InvalidInput(where, f"{key!r} must be an object")
    return value


def _text(document: Mapping[str, Any], key: str, where: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(where, f"missing {key!r}")
    return value


def _voted_units(voting: Any, where: str) -> tuple[VotedUnit, ...]:
    if not isinstance(voting, dict) or not isinstance(voting.get("units", []), list):
        raise InvalidInput(where, "expected an object with a 'units' list")
    units = []
    for row in voting.get("units", []):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            raise InvalidInput(where, "a voted unit has no name")
        rank = row.get("consensus_rank")
        units.append(VotedUnit(row["name"], float(rank) if isinstance(rank, int | float) else None))
    return tuple(units)


def build_facts(config: Any, voting: Any, benchmark_sha256: str, *, config_where: str,
                voting_where: str) -> BuildFacts:
    """`config`/`voting` are the parsed files; the `*_where` name them in errors."""
    if not isinstance(config, dict):
        raise InvalidInput(config_where, "expected a JSON object")
    requirement = _object(config, "requirement", config_where)
    return BuildFacts(
        requirement_name=_text(requirement, "name", config_where),
        domain=str(requirement.get("domain", "")), description=str(requirement.get("description", "")),
        scicustom_version=_text(config, "scicustom_version", config_where),
        params=_object(config, "params", config_where), corpus=_object(config, "corpus", config_where),
        judges=_object(config, "judges", config_where), coverage=_object(config, "coverage", config_where),
        validity=_object(config, "validity", config_where), voted_units=_voted_units(voting, voting_where),
        benchmark_sha256=benchmark_sha256)
