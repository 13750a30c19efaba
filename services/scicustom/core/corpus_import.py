"""Normalising raw source records into corpus items, de-duplicating, and the import report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scicustom.core.corpus_item import LABELS, CorpusItem, make_item, split_inline_options


@dataclass(frozen=True)
class RawRecord:
    """A record as a source reader found it. Either `options` or `inline_query` carries the options;
    an open item has neither and gives `answer`."""

    origin: str
    subject: str = ""
    question: Any = None
    options: Any = None
    answer_index: Any = None
    answer: Any = None
    inline_query: Any = None


def normalise_record(raw: RawRecord, source: str, licence: str) -> CorpusItem:
    """One validated item, or ValueError naming why the record is malformed."""
    question, options = raw.question, raw.options
    if raw.inline_query is not None:
        if not isinstance(raw.inline_query, str):
            raise ValueError("inline query is not text")
        question, labels, parsed = split_inline_options(raw.inline_query)
        if len(parsed) < 2:
            raise ValueError("no options found in the question text")
        expected = [c for c in LABELS[: len(parsed)]]
        if labels != expected and labels != [str(i + 1) for i in range(len(parsed))]:
            raise ValueError(f"option labels {''.join(labels)} are not a sequence")
        options = parsed
    if not isinstance(question, str):
        raise ValueError("question is not text")
    if options is not None and (not isinstance(options, list | tuple)
                                or not all(isinstance(o, str) for o in options)):
        raise ValueError("options are not a list of text")
    answer_index = raw.answer_index
    if answer_index is not None and (isinstance(answer_index, bool) or not isinstance(answer_index, int)):
        raise ValueError(f"answer index {answer_index!r} is not an integer")
    answer = raw.answer if isinstance(raw.answer, str) else None
    return make_item(source, licence, raw.subject, question, list(options or []), answer_index, answer)


@dataclass
class SourceReport:
    read: int = 0
    imported: int = 0
    duplicates: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    status: str = "imported"  # or "up to date"


@dataclass
class ImportReport:
    sources: dict[str, SourceReport] = field(default_factory=dict)
    total_items: int = 0

    def render(self) -> str:
        lines = [f"{'source':<14}{'status':<12}{'read':>8}{'imported':>10}{'dupes':>8}{'skipped':>9}"]
        for name, rep in self.sources.items():
            lines.append(f"{name:<14}{rep.status:<12}{rep.read:>8}{rep.imported:>10}{rep.duplicates:>8}"
                         f"{sum(rep.skipped.values()):>9}")
            for reason, count in rep.skipped.most_common():
                lines.append(f"{'':<14}  skipped {count} x {reason}")
        lines.append(f"corpus now holds {self.total_items} items")
        return "\n".join(lines)


def merge_source(
    existing: dict[str, CorpusItem],
    seen_keys: set[str],
    records: Iterable[RawRecord],
    source: str,
    licence: str,
    report: SourceReport,
) -> None:
    """Add a source's records to `existing` in place. An item whose (question, answer) already exists,
    from this or an earlier source, is a duplicate; re-importing the same records changes nothing."""
    for raw in records:
        report.read += 1
        try:
            item = normalise_record(raw, source, licence)
        except ValueError as exc:
            report.skipped[str(exc)] += 1
            continue
        key = item.dedup_key()
        if key in seen_keys:  # already present, from this source or an earlier one
            report.duplicates += 1
            continue
        seen_keys.add(key)
        existing[item.id] = item
        report.imported += 1
