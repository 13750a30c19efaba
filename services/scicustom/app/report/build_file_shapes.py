"""The shape of what `report.html` reads from a build's files, checked before anything is drawn.

`scicustom report BUILD_DIR` renders files a user may have edited, truncated or mixed from two
builds; a value of the wrong kind would otherwise surface as a KeyError or TypeError deep inside a
chart. Only what the renderer reads is checked, so a build of any version that carries those values
renders, and a problem names the file and the path of the value ("units[3].name: expected text").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput

MAX_CHART_NUMBER = 2**53  # charts go through plotly's JSON, whose integers end at 64 bits


@dataclass(frozen=True)
class Kind:
    """A leaf: `test` says whether a value is one."""

    name: str
    test: Any


ANY = Kind("anything", lambda v: True)
TEXT = Kind("text", lambda v: isinstance(v, str))
NUMBER = Kind("a finite number", lambda v: not isinstance(v, bool) and (
    (isinstance(v, int) and abs(v) <= MAX_CHART_NUMBER) or (isinstance(v, float) and math.isfinite(v))))
NUMBER_OR_NULL = Kind("a finite number or null", lambda v: v is None or NUMBER.test(v))


@dataclass(frozen=True)
class Required:
    shape: Any


@dataclass(frozen=True)
class MapOf:
    """A JSON object of any keys whose values all have `shape`."""

    shape: Any


@dataclass(frozen=True)
class Pair:
    """A list of exactly two values of `shape` (an interval), or an empty/absent one."""

    shape: Any


# A shape is a Kind, a dict of key -> shape (keys optional unless Required), a one-element list
# [shape] (a list of such values), MapOf or Pair.
_VOTES = MapOf(ANY)
SHAPES: dict[str, Any] = {
    "voting.json": {
        "units": [{"name": Required(TEXT), "consensus_rank": Required(NUMBER)}],
        "per_judge": MapOf([TEXT]), "missing_rank": NUMBER, "demoted_broad_units": [TEXT],
    },
    "candidates.jsonl": {"id": Required(TEXT), "rank": Required(NUMBER), "similarity": NUMBER, "shared_units": [ANY]},
    "cutoff.json": {
        "probes": [{"position": Required(NUMBER), "id": Required(ANY), "votes": _VOTES, "reasons": MapOf(ANY)}],
        "accepted_votes": MapOf(_VOTES), "cutoff_position": NUMBER_OR_NULL,
        "relevance_gate": MapOf(ANY), "quality_gate": {"dropped": MapOf(ANY)},
        "cut_set_scores": [{"hardness": Required(NUMBER), "quality": Required(NUMBER), "id": Required(ANY)}],
    },
    "proxy.jsonl": {"hardness": Required(NUMBER), "quality": Required(NUMBER), "id": Required(ANY)},
    "benchmark.jsonl": {"provenance": MapOf(ANY)},
    "coverage.json": {
        "units": [{"name": Required(TEXT), "relevant": Required(NUMBER), "in_benchmark": Required(NUMBER)}],
        "min_items": NUMBER_OR_NULL,
    },
    "config.json": {
        "requirement": MapOf(ANY), "params": MapOf(ANY), "coverage": MapOf(ANY), "corpus": MapOf(ANY),
        "validity": {"estimated_on_topic": NUMBER_OR_NULL, "ci95": Pair(NUMBER), "judge_acceptance": MapOf(NUMBER),
                     "items_by_offline_agreement": MapOf(ANY)},
        "judges": {"acceptance": MapOf(NUMBER), "agreement": MapOf(ANY)}, "warnings": [ANY],
    },
    "diff.json": {
        "questions": {"added": [ANY], "removed": [ANY], "kept": [ANY]},
        "voted_units": {"gained": [MapOf(ANY)], "lost": [MapOf(ANY)]},
        "coverage_changed": [{key: Required({"before": Required(ANY), "after": Required(ANY)})
                              for key in ("corpus_items", "relevant", "in_benchmark")}],
    },
}


class _Mismatch(Exception):
    def __init__(self, path: str, expected: str) -> None:
        super().__init__(f"{path or 'the document'}: expected {expected}")


def check_document(value: Any, name: str, where: str) -> None:
    """InvalidInput naming `<where> <name>` and the value's path when `value` (the parsed file, or
    one row of a JSONL file) does not have the shape the report reads."""
    try:
        _check(value, SHAPES[name], "")
    except _Mismatch as exc:
        raise InvalidInput(f"{where} {name}", str(exc)) from None


def _check(value: Any, shape: Any, path: str) -> None:
    if isinstance(shape, Required):
        shape = shape.shape
    if isinstance(shape, Kind):
        if not shape.test(value):
            raise _Mismatch(path, shape.name)
    elif isinstance(shape, dict):
        _check_object(value, shape, path)
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise _Mismatch(path, "a list")
        for i, item in enumerate(value):
            _check(item, shape[0], f"{path}[{i}]")
    elif isinstance(shape, MapOf):
        if not isinstance(value, dict):
            raise _Mismatch(path, "an object")
        for key, item in value.items():
            _check(item, shape.shape, _join(path, key))
    elif isinstance(shape, Pair):
        _check_pair(value, shape, path)


def _check_object(value: Any, shape: Mapping[str, Any], path: str) -> None:
    if not isinstance(value, dict):
        raise _Mismatch(path, "an object")
    for key, inner in shape.items():
        if key in value:
            _check(value[key], inner, _join(path, key))
        elif isinstance(inner, Required):
            raise _Mismatch(_join(path, key), f"{_expected(inner.shape)} (it is missing)")


def _check_pair(value: Any, shape: Pair, path: str) -> None:
    if value is None or value == []:
        return
    if not isinstance(value, list) or len(value) != 2:
        raise _Mismatch(path, "a list of two values")
    for i, item in enumerate(value):
        _check(item, shape.shape, f"{path}[{i}]")


def _expected(shape: Any) -> str:
    if isinstance(shape, Kind):
        return shape.name
    return "a list" if isinstance(shape, Sequence) else "an object"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else str(key)
