"""One benchmark MCQ as `scicustom build` writes it, and parsing of the benchmark JSON lines.

A line is `{"id", "query", "answer", "choices", "answer_index", "provenance"}`; `query` is the stem
followed by the options, one per line, labelled "A. ..." to "E. ...", and `choices`/`answer_index`
are the same options and answer structured (files built before they existed lack them). Evaluation
needs the options apart from the stem (label extraction matches echoed option text, the local
scorer scores each option).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from scicustom.core.errors import InvalidInput
from scicustom.core.jsonl import parse_jsonl

LABELS = "ABCDE"
_OPTION_LINE = re.compile(r"^\s*\(?([A-E])[.):]\s+(.*\S)\s*$")


@dataclass(frozen=True)
class MCQItem:
    id: str
    query: str
    answer: str
    stem: str
    options: Mapping[str, str]  # label -> option text, labels A.. in order

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.options)

    @property
    def query_sha(self) -> str:
        """Identifies the question a stored response was given for (ids may be reused)."""
        return hashlib.sha256(self.query.encode()).hexdigest()[:16]


def split_query(query: str) -> tuple[str, dict[str, str]]:
    """Stem and options of a query. The options are the last run of lines labelled A, B, C...
    in order; a line that carries no label continues the option above it."""
    lines = query.splitlines()
    starts = [i for i, line in enumerate(lines) if (m := _OPTION_LINE.match(line)) and m.group(1) == "A"]
    for start in reversed(starts):
        options: dict[str, str] = {}
        for line in lines[start:]:
            match = _OPTION_LINE.match(line)
            expected = LABELS[len(options)] if len(options) < len(LABELS) else None
            if match and expected is not None and match.group(1) == expected:
                options[expected] = match.group(2)
            elif options and line.strip() and not match:
                last = next(reversed(options))
                options[last] = f"{options[last]} {line.strip()}"
            elif line.strip():
                break
        if len(options) >= 2:
            return "\n".join(lines[:start]).strip(), options
    raise ValueError("no options labelled 'A. ...', 'B. ...' found")


def parse_item(record: Mapping[str, Any], where: str) -> MCQItem:
    for key in ("id", "query", "answer"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise InvalidInput(where, f"missing or empty string field {key!r}")
    try:
        stem, options = split_query(record["query"])
    except ValueError as exc:
        raise InvalidInput(where, str(exc)) from None
    answer = record["answer"].strip().upper()
    if answer not in options:
        raise InvalidInput(where, f"answer {record['answer']!r} is not one of the options {''.join(options)}")
    options = _structured_options(record, options, answer, where)
    return MCQItem(id=record["id"], query=record["query"], answer=answer, stem=stem, options=options)


def _structured_options(record: Mapping[str, Any], parsed: dict[str, str], answer: str,
                        where: str) -> dict[str, str]:
    """The record's `choices` as label -> text when it has them: the options as written, before
    they were joined into the query. They must be the query's options and agree with the answer."""
    choices, index = record.get("choices"), record.get("answer_index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)
                              or not 0 <= index < len(parsed) or LABELS[index] != answer):
        raise InvalidInput(where, f"answer_index {index!r} does not point at answer {answer!r}")
    if choices is None:
        return parsed
    if not isinstance(choices, list) or not all(isinstance(c, str) and c.strip() for c in choices):
        raise InvalidInput(where, "choices must be a list of non-empty strings")
    if len(choices) != len(parsed):
        raise InvalidInput(where, f"{len(choices)} choices but the query lists {len(parsed)} options")
    return dict(zip(LABELS, choices, strict=False))


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


Record = TypeVar("Record", bound=_Identified)


def parse_unique(lines: Iterable[str], source: str, parse: Callable[[Mapping[str, Any], str], Record],
                 when_empty: str) -> list[Record]:
    """Each line of a benchmark file parsed by `parse`, in file order; blank lines are skipped, ids
    must be unique and there must be one record (`when_empty` says what is missing)."""
    records: list[Record] = []
    seen: set[str] = set()
    for where, raw in parse_jsonl(lines, source):
        record = parse(raw, where)
        if record.id in seen:
            raise InvalidInput(where, f"duplicate id {record.id!r}")
        seen.add(record.id)
        records.append(record)
    if not records:
        raise InvalidInput(source, when_empty)
    return records


def parse_benchmark(lines: Iterable[str], source: str = "benchmark") -> list[MCQItem]:
    """Items of a benchmark file; blank lines are skipped, ids must be unique."""
    return parse_unique(lines, source, parse_item, "no items")
