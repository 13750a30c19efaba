"""Hypothesis strategies for arbitrary protobuf messages of a given descriptor.

Every field may be left unset or set: strings from empty to huge (incl. any Unicode), integers at
their type's boundaries, floats incl. NaN/inf, unknown enum numbers, repeated fields and maps,
nested messages down to a depth limit, and at most one member of each oneof (the wire cannot say
more). `field_values` lets a target bias a field towards values that get past the first check
(e.g. real ids, a valid requirement), so generated requests also reach the code behind the checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

F = FieldDescriptor
MAX_DEPTH = 3
_UNICODE = st.characters(blacklist_categories=("Cs",))  # proto strings are UTF-8: no lone surrogates

# Strings as callers send them: mostly short, sometimes tricky, now and then far over any limit.
# (one_of picks a branch uniformly: the repeats make the huge ones rarer)
_SHORT = st.text(_UNICODE, max_size=24)
TEXT = st.one_of(
    _SHORT, _SHORT, _SHORT,
    st.text(st.sampled_from("aZ09 _-./:\\\n\t\x00"), max_size=40),
    st.sampled_from(["", " ", "0", "-1", "..", "../../etc/passwd", "a" * 129, "null", "{}", "[]", "é", "\u202e",
                     "\x00", "%s", "*", "'; DROP TABLE x; --", "\ufeff"]),
    st.integers(1_000, 70_000).map(lambda n: "x" * n),
)
_SHORT_BYTES = st.binary(max_size=64)
BYTES = st.one_of(_SHORT_BYTES, _SHORT_BYTES, _SHORT_BYTES, st.integers(1_000, 70_000).map(lambda n: b"\x01" * n))


_EDGES = (0, 1, -1, 2, 10, 100, 101, 1000, 1001, 2**31 - 1, -(2**31), 2**32 - 1, 2**63 - 1, -(2**63), 2**64 - 1)


def _ints(low: int, high: int) -> st.SearchStrategy[int]:
    edges = sorted({v for v in (low, high, *_EDGES) if low <= v <= high})
    return st.one_of(st.sampled_from(edges), st.integers(max(low, -3), min(high, 300)), st.integers(low, high))


_INT_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1), F.TYPE_SINT32: (-(2**31), 2**31 - 1), F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1), F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1), F.TYPE_SINT64: (-(2**63), 2**63 - 1), F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1), F.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = {
    F.TYPE_DOUBLE: st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 0.5, 1.0, 0.95, 1e-300, 1e300])),
    F.TYPE_FLOAT: st.one_of(st.floats(width=32), st.sampled_from([0.0, 0.5, 1.0, 0.95, -1.0])),
}

Overrides = Mapping[str, st.SearchStrategy[Any]]


def scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == F.TYPE_STRING:
        return TEXT
    if kind == F.TYPE_BYTES:
        return BYTES
    if kind == F.TYPE_BOOL:
        return st.booleans()
    if kind in _FLOATS:
        return _FLOATS[kind]
    if kind == F.TYPE_ENUM:  # proto3 enums are open: unknown numbers reach the server too
        return st.one_of(st.sampled_from([v.number for v in field.enum_type.values]), _ints(-(2**31), 2**31 - 1))
    low, high = _INT_RANGES[kind]
    return _ints(low, high)


def messages(descriptor: Descriptor, field_values: Overrides | None = None, *,
             depth: int = 0) -> st.SearchStrategy[Message]:
    """Arbitrary messages of `descriptor`; `field_values` maps a field name (in any message of the
    tree) to extra values to mix into it (for a repeated field: one element)."""
    values = dict(field_values or {})
    return st.composite(lambda draw: _draw_message(draw, descriptor, values, depth))()


def _value(descriptor: FieldDescriptor, values: Overrides, depth: int) -> st.SearchStrategy[Any]:
    if descriptor.type in (F.TYPE_MESSAGE, F.TYPE_GROUP):
        base: st.SearchStrategy[Any] = messages(descriptor.message_type, values, depth=depth + 1)
    else:
        base = scalar(descriptor)
    extra = values.get(descriptor.name)
    return base if extra is None else st.one_of(extra, extra, base)


def _draw_message(draw: Callable[[st.SearchStrategy[Any]], Any], descriptor: Descriptor, values: Overrides,
                  depth: int) -> Message:
    message = GetMessageClass(descriptor)()
    chosen_oneof = {o.name: draw(st.sampled_from([None, *o.fields])) for o in descriptor.oneofs
                    if not _synthetic(o)}
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and not _synthetic(oneof):
            if chosen_oneof[oneof.name] is not field:
                continue
        elif not draw(st.booleans()):
            continue
        _set(draw, message, field, values, depth)
    return message


def _set(draw: Callable[[st.SearchStrategy[Any]], Any], message: Message, field: FieldDescriptor, values: Overrides,
         depth: int) -> None:
    nested = field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP)
    if nested and depth >= MAX_DEPTH:
        return
    if _is_map(field):
        key_field, value_field = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
        entries = draw(st.dictionaries(scalar(key_field), _value(value_field, values, depth), max_size=4))
        target = getattr(message, field.name)
        for key, value in entries.items():
            if value_field.type == F.TYPE_MESSAGE:
                target[key].CopyFrom(value)
            else:
                target[key] = value
        return
    if field.label == F.LABEL_REPEATED:
        many = draw(st.one_of(st.integers(0, 4), st.integers(0, 40)) if not nested else st.integers(0, 4))
        items = [draw(_value(field, values, depth)) for _ in range(many)]
        target = getattr(message, field.name)
        if nested:
            for item in items:
                target.add().CopyFrom(item)
        else:
            target.extend(items)
        return
    value = draw(_value(field, values, depth))
    if nested:
        getattr(message, field.name).CopyFrom(value)
    else:
        setattr(message, field.name, value)


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == F.TYPE_MESSAGE and field.message_type.GetOptions().map_entry


def _synthetic(oneof: Any) -> bool:
    """proto3 `optional` fields live in a oneof of their own; they are plain optional fields here."""
    return len(oneof.fields) == 1 and oneof.name == f"_{oneof.fields[0].name}"
