"""`scicustom corpus import`: packaged sources and user JSONL files into the stored corpus.

Incremental and idempotent: a source whose fingerprint (edition of its package and reader, slice)
is recorded as imported is skipped; re-reading a source adds nothing that is already there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from tqdm import tqdm

from scicustom.core.corpus_import import ImportReport, RawRecord, SourceReport, merge_source
from scicustom.core.errors import InvalidInput
from scicustom.core.jsonl import NotJSON, json_loads
from scicustom.ports import CorpusRepository, CorpusSource, PackagedCorpus


def evenly_spaced(records: Iterable[RawRecord], limit: int | None) -> Iterator[RawRecord]:
    """A slice of `limit` records spread evenly over the source (all its subjects and splits)."""
    if limit is None:
        yield from records
        return
    everything = list(records)
    step = max(len(everything) / max(limit, 1), 1.0)
    for k in range(min(limit, len(everything))):
        yield everything[int(k * step)]


def import_packaged(
    repo: CorpusRepository,
    packaged: PackagedCorpus,
    sources: Sequence[str] | None = None,
    limit_per_source: int | None = None,
    show_progress: bool = True,
) -> ImportReport:
    known = {s.name: s for s in packaged.sources()}
    unknown = [s for s in sources or () if s not in known]
    if unknown:
        raise InvalidInput("--source", f"unknown source(s) {', '.join(unknown)}; known: {', '.join(known)}")
    chosen: list[CorpusSource] = [known[s] for s in sources] if sources else list(known.values())
    items = {item.id: item for item in repo.load_items()}
    seen_keys = {item.dedup_key() for item in items.values()}
    state = repo.import_state()
    report = ImportReport()
    changed = False
    for source in chosen:
        fingerprint = f"{source.edition}|slice={limit_per_source}"
        rep = report.sources.setdefault(source.name, SourceReport())
        if state.get(source.name) == fingerprint:
            rep.status = "up to date"
            continue
        records = evenly_spaced(packaged.records(source.name), limit_per_source)
        if show_progress:
            records = tqdm(records, desc=f"import {source.name}", unit=" rec", leave=False)
        merge_source(items, seen_keys, records, source.name, source.licence, rep)
        state[source.name] = fingerprint
        changed = True
    if changed:
        repo.save_items(items.values())
        repo.save_import_state(state)
    report.total_items = len(items)
    return report


def _user_records(path: Path) -> Iterator[RawRecord]:
    # Not parse_jsonl: a line that is not a JSON object is counted as malformed, never fatal; a file
    # that is not UTF-8 text is refused whole (nothing is imported: the items are saved at the end).
    try:
        with path.open(encoding="utf-8") as lines:
            yield from _records_of_lines(path, lines)
    except UnicodeDecodeError:
        raise InvalidInput("--jsonl", f"{path.name} is not UTF-8 text") from None


def _records_of_lines(path: Path, lines: Iterable[str]) -> Iterator[RawRecord]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json_loads(line)
        except NotJSON:
            obj = None
        if not isinstance(obj, dict):
            yield RawRecord(origin=f"{path}:{number}")  # counted as malformed
            continue
        yield RawRecord(origin=f"{path}:{number}", subject=str(obj.get("subject", "")),
                        question=obj.get("question"), options=obj.get("options"),
                        answer_index=obj.get("answer_index"), answer=obj.get("answer"))


def import_jsonl(repo: CorpusRepository, path: Path, source: str, licence: str) -> ImportReport:
    """User items, one JSON object per line: question, and options + answer_index, or answer (open)."""
    if not path.is_file():
        raise InvalidInput("--jsonl", f"{path} is not a file")
    if not source.isidentifier():
        raise InvalidInput("--source-name", f"{source!r} must be a short identifier")
    items = {item.id: item for item in repo.load_items()}
    seen_keys = {item.dedup_key() for item in items.values()}
    report = ImportReport()
    rep = report.sources.setdefault(source, SourceReport())
    merge_source(items, seen_keys, _user_records(path), source, licence, rep)
    if rep.imported:
        repo.save_items(items.values())
    report.total_items = len(items)
    return report
