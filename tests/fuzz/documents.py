"""Strategies for the documents users hand the platform: JSON values and lines, YAML requirement
documents (nested, with anchors and aliases, deeply nested, huge) and raw bytes of any encoding."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml
from hypothesis import strategies as st

from tests.fuzz.proto_messages import TEXT


def _power_of_ten(exponent: int) -> int:
    return 10**exponent


# Scalars at the edges JSON readers meet: integers past float's and int64's range, non-finite floats.
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([400, 30, 19]).map(_power_of_ten),
    st.sampled_from([2**63, -(2**63) - 1, 0, -1]), st.floats(allow_nan=True, allow_infinity=True), TEXT)


def json_values(keys: Sequence[str] = ()) -> st.SearchStrategy[Any]:
    """Nested JSON values; objects prefer `keys`, so readers see their own fields with wrong values."""
    key = st.one_of(st.sampled_from(list(keys)), TEXT) if keys else TEXT
    return st.recursive(JSON_SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(key, inner, max_size=6)), max_leaves=12)


def json_objects(keys: Sequence[str], fields: dict[str, st.SearchStrategy[Any]] | None = None
                 ) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with a random subset of `keys` (values arbitrary, or plausible from `fields`)."""
    plausible = fields or {}
    values = {k: st.one_of(plausible[k], json_values()) if k in plausible else json_values() for k in keys}
    return st.fixed_dictionaries({}, optional=values).flatmap(
        lambda known: st.dictionaries(TEXT, json_values(), max_size=2).map(lambda extra: {**extra, **known}))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # NaN/Infinity as Python writes them, as some tools do


# Lines a JSONL reader meets: objects, other JSON, broken JSON, deep nesting, an int past 4300 digits.
HOSTILE_LINES = st.sampled_from([
    "", "   ", "{", "}", "[]", "null", "1", '"s"', "{'a': 1}", '{"a": NaN}', '{"a": Infinity}', "\ufeff{}",
    "[" * 50_000, "[" * 50_000 + "]" * 50_000, '{"a": ' * 20_000 + "1" + "}" * 20_000, "9" * 5_000,
    '{"id": ' + "9" * 5_000 + "}", '{"a": "\\ud800"}', '{"a": 1}{"b": 2}', "\x00", "\u2028"])


def jsonl_lines(objects: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[list[str]]:
    line = st.one_of(objects.map(_dumps), objects.map(_dumps), json_values().map(_dumps), HOSTILE_LINES, TEXT)
    return st.lists(line, max_size=6)


def encoded(lines: st.SearchStrategy[list[str]]) -> st.SearchStrategy[bytes]:
    """A file of the lines, sometimes in the wrong encoding, damaged, or not text at all."""
    text = lines.map("\n".join)
    return st.one_of(
        text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        text.map(lambda t: t.encode("utf-16")),
        text.map(lambda t: t.encode("latin-1", "replace")),
        st.tuples(text, st.binary(min_size=1, max_size=8)).map(lambda p: p[0].encode("utf-8", "replace") + p[1]),
        st.binary(max_size=256))


# -- YAML --------------------------------------------------------------------------------------------
def _yaml_dump(value: Any) -> str:
    try:
        return yaml.safe_dump(value, allow_unicode=True, sort_keys=False)
    except (yaml.YAMLError, RecursionError, ValueError):
        return "{}"


HOSTILE_YAML = st.sampled_from([
    "", "---\n...\n", "- " * 5_000, "[" * 5_000 + "]" * 5_000, "{a: " * 3_000 + "1" + "}" * 3_000,
    "a: &x [1, 2]\nb: *x\n", "a: &a [*a]\n", "description: x\n<<: {k1: 3}\n",
    "description: !!python/object/apply:os.system ['true']\n", "description: !!binary aGVsbG8=\n",
    "? [a, b]\n: c\n", "description: x\n---\ndescription: y\n", "description: 'unclosed\n",
    "description: x\nk1: 10000000000000000000000000000000000\n", "description: x\nk1: .inf\n",
    "description: \"\\ud800\"\n", "\t- a\n", "%YAML 9.9\n---\na: 1\n", "description: x\nk2: 0x10\n",
    "laughs: &a [\"lol\",\"lol\"]\nb: &b [*a,*a,*a]\nc: &c [*b,*b,*b]\ndescription: x\n"])


def requirement_documents() -> st.SearchStrategy[str]:
    judge = st.fixed_dictionaries({}, optional={"provider": json_values(), "model": json_values()})
    plausible = {
        "description": st.one_of(TEXT, st.just("virus capsid and viral genome")),
        "requirement": TEXT, "domain": TEXT,
        "k1": st.one_of(st.integers(-2, 200), json_values()), "k2": st.integers(-2, 2000),
        "proxy_samples": st.integers(-2, 2000),
        "voting_judges": st.lists(judge, max_size=3), "relevance_judges": st.lists(judge, max_size=3),
        "mcq_writer": judge, "encoder_name": TEXT, "fuzzy_threshold": st.floats(),
    }
    documents = json_objects(list(plausible), plausible).map(_yaml_dump)
    return st.one_of(documents, documents, json_values().map(_yaml_dump), HOSTILE_YAML, TEXT)
