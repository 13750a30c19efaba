"""Getting items into the ingestion pipeline: a paper's items or packaged sources -> stored batches
of at most 1000 items -> one items-imported announcement each (IngestService and the benchmark use it).

Items are normalised by `core.corpus_import` exactly as `scicustom corpus import` does, and
duplicates (same question and answer) within one submission are kept once. How a batch is
announced (the items-imported event) is the caller's `announce`: see ingest/worker.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scicustom.app.ingest.corpus_importer import evenly_spaced
from scicustom.app.ingest.item_batches import MAX_BATCH_ITEMS, WrittenBatch, write_imported
from scicustom.core.corpus_import import RawRecord, SourceReport, merge_source, normalise_record
from scicustom.core.corpus_item import LABELS, CorpusItem
from scicustom.core.errors import InvalidInput
from scicustom.ports import ObjectStore, PackagedCorpus

# Announces a stored batch (batch, source) to the tag stage and returns once that is durable.
AnnounceBatch = Callable[[WrittenBatch, str], None]

PAPER_SOURCE = "paper"
MAX_PAPER_ID = 200
MAX_TITLE = 1000
MAX_LICENCE = 100
MAX_QUESTION = 8000
MAX_ANSWER = 8000
MAX_OPTION = 2000


@dataclass(frozen=True)
class PaperItem:
    question: str
    answer: str = ""
    options: tuple[str, ...] = ()
    answer_index: int | None = None


@dataclass(frozen=True)
class Paper:
    paper_id: str
    title: str
    licence: str
    items: tuple[PaperItem, ...]


def _text(value: str, field: str, limit: int) -> None:
    if not value.strip():
        raise InvalidInput(field, "is empty")
    if len(value) > limit:
        raise InvalidInput(field, f"has {len(value)} characters, above the limit {limit}")


def _check_item(item: PaperItem, field: str) -> None:
    _text(item.question, f"{field}.question", MAX_QUESTION)
    if not item.options:
        _text(item.answer, f"{field}.answer", MAX_ANSWER)
        if item.answer_index is not None:
            raise InvalidInput(f"{field}.answer_index", "is set but the item has no options")
        return
    if not 2 <= len(item.options) <= len(LABELS):
        raise InvalidInput(f"{field}.options", f"has {len(item.options)} entries; give 2 to {len(LABELS)}")
    for j, option in enumerate(item.options):
        _text(option, f"{field}.options[{j}]", MAX_OPTION)
    if item.answer_index is None:
        raise InvalidInput(f"{field}.answer_index", "is required with options")
    if not 0 <= item.answer_index < len(item.options):
        raise InvalidInput(f"{field}.answer_index", f"{item.answer_index} is not in 0..{len(item.options) - 1}")
    if item.answer.strip() and item.answer.strip() != item.options[item.answer_index].strip():
        raise InvalidInput(f"{field}.answer", "differs from options[answer_index]; leave it empty or equal")


def paper_items(paper: Paper) -> list[CorpusItem]:
    """The paper's items normalised, in request order (equal items share one id); InvalidInput names
    the first bad field, e.g. `items[3].options[1]`."""
    _text(paper.paper_id, "paper_id", MAX_PAPER_ID)
    _text(paper.title, "title", MAX_TITLE)
    _text(paper.licence, "licence", MAX_LICENCE)
    if not paper.items:
        raise InvalidInput("items", "is empty")
    if len(paper.items) > MAX_BATCH_ITEMS:
        raise InvalidInput("items", f"has {len(paper.items)} entries, above the limit {MAX_BATCH_ITEMS}")
    items = []
    for i, item in enumerate(paper.items):
        _check_item(item, f"items[{i}]")
        raw = RawRecord(origin=f"items[{i}]", subject=paper.title.strip(), question=item.question,
                        options=list(item.options) or None, answer_index=item.answer_index,
                        answer=None if item.options else item.answer)
        try:
            items.append(normalise_record(raw, PAPER_SOURCE, paper.licence.strip()))
        except ValueError as exc:
            raise InvalidInput(f"items[{i}]", str(exc)) from None
    return items


def submit_paper(store: ObjectStore, announce: AnnounceBatch, paper: Paper) -> tuple[WrittenBatch, list[str]]:
    """Stores and announces the paper's batch; returns it and the item id of each request item."""
    items = paper_items(paper)
    meta = {"source": PAPER_SOURCE, "origin": paper.paper_id.strip(), "title": paper.title.strip(),
            "licence": paper.licence.strip()}
    batch = write_imported(store, meta, items)
    announce(batch, PAPER_SOURCE)
    return batch, [it.id for it in items]


@dataclass
class SourceBatches:
    source: str
    report: SourceReport
    items: list[CorpusItem]

    def chunks(self) -> list[list[CorpusItem]]:
        return [self.items[k : k + MAX_BATCH_ITEMS] for k in range(0, len(self.items), MAX_BATCH_ITEMS)]


def read_packaged(packaged: PackagedCorpus, sources: Sequence[str],
                  limit_per_source: int | None) -> list[SourceBatches]:
    """The packaged sources' items (all sources when `sources` is empty), normalised and de-duplicated
    across the sources read together, in reading order; `limit_per_source` takes an even slice."""
    known = {s.name: s for s in packaged.sources()}
    for i, name in enumerate(sources):
        if name not in known:
            raise InvalidInput(f"sources[{i}]", f"unknown source {name!r}; known: {', '.join(known)}")
    if limit_per_source is not None and limit_per_source < 1:
        raise InvalidInput("limit_per_source", "must be >= 1")
    seen: set[str] = set()
    out = []
    for name in dict.fromkeys(sources or known):
        source = known[name]
        found: dict[str, CorpusItem] = {}
        report = SourceReport()
        merge_source(found, seen, evenly_spaced(packaged.records(name), limit_per_source), name, source.licence,
                     report)
        out.append(SourceBatches(name, report, list(found.values())))
    return out


def submit_packaged(store: ObjectStore, announce: AnnounceBatch,
                    read: Sequence[SourceBatches]) -> list[tuple[str, WrittenBatch]]:
    """One batch per 1000 items of each source, stored and announced; (source, batch) in order."""
    written = []
    for source in read:
        for chunk in source.chunks():
            batch = write_imported(store, {"source": source.source, "origin": f"packaged:{source.source}"}, chunk)
            announce(batch, source.source)
            written.append((source.source, batch))
    return written


def import_packaged_batches(store: ObjectStore, announce: AnnounceBatch, packaged: PackagedCorpus,
                            sources: Sequence[str], limit_per_source: int | None,
                            ) -> tuple[list[SourceBatches], list[tuple[str, WrittenBatch]]]:
    """ImportCorpus: read the packaged sources (0 = no limit), then store and announce their batches."""
    read = read_packaged(packaged, sources, limit_per_source or None)
    return read, submit_packaged(store, announce, read)
