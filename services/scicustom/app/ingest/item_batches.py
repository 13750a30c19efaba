"""Batches of corpus items in the object store, the payloads of the ingestion events.

Layout (keys), one folder per batch:
  ingest/batches/<id>/batch.json          what the batch is: source, origin (paper id or packaged source), title
  ingest/batches/<id>/imported.jsonl      normalised items, one canonical JSON object per line, by id
  ingest/batches/<id>/tagged.jsonl        per item: the item, its tags and its embedding (tag stage)
  ingest/batches/<id>/tagged_report.json  tagger version, embedder, skipped records, step timings
  ingest/batches/<id>/indexed.json        the batch's report (index stage; its presence means done)
  ingest/batches/<id>/failed-<stage>.json a stage gave the batch up (dead letter)

The batch id is a digest of batch.json and imported.jsonl, so submitting the same items again names
the same batch and the stages, finding its files, only announce them again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.errors import InvalidInput, NotFound, UnreadableBatch
from scicustom.ports import ObjectStore

MAX_BATCH_ITEMS = 1000
BATCHES_PREFIX = "ingest/batches/"
_BATCH_ID = re.compile(r"[0-9a-f]{32}")
_ITEM_FIELDS = ("id", "source", "licence", "subject", "question", "options", "answer_index", "answer", "format")


@dataclass(frozen=True)
class BatchKeys:
    batch_id: str

    def _key(self, name: str) -> str:
        return f"{BATCHES_PREFIX}{self.batch_id}/{name}"

    @property
    def meta(self) -> str:
        return self._key("batch.json")

    @property
    def imported(self) -> str:
        return self._key("imported.jsonl")

    @property
    def tagged(self) -> str:
        return self._key("tagged.jsonl")

    @property
    def tag_report(self) -> str:
        return self._key("tagged_report.json")

    @property
    def indexed(self) -> str:
        return self._key("indexed.json")

    def failed(self, stage: str) -> str:
        return self._key(f"failed-{stage}.json")


# Items as records --------------------------------------------------------------------------------
def item_record(item: CorpusItem) -> dict[str, Any]:
    return {"id": item.id, "source": item.source, "licence": item.licence, "subject": item.subject,
            "question": item.question, "options": list(item.options), "answer_index": item.answer_index,
            "answer": item.answer, "format": item.format}


def item_from_record(record: Any) -> CorpusItem:
    """The item a record describes, validated again; ValueError naming why a record is bad."""
    if not isinstance(record, Mapping):
        raise ValueError("record is not a JSON object")
    missing = [f for f in _ITEM_FIELDS if f not in record]
    if missing:
        raise ValueError(f"record lacks {', '.join(missing)}")
    texts = ("id", "source", "licence", "subject", "question", "answer")
    if not all(isinstance(record[f], str) for f in texts) or not isinstance(record["options"], list):
        raise ValueError("record field of the wrong type")
    index = record["answer_index"]
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
        raise ValueError("answer index is not an integer")
    item = make_item(record["source"], record["licence"], record["subject"], record["question"],
                     [str(o) for o in record["options"]], index, record["answer"])
    if item.id != record["id"]:
        raise ValueError("id does not match the item's content")
    return item


def _lines(data: bytes, key: str) -> list[tuple[int, Any]]:
    """(line number, parsed JSON or None) per non-empty line; UnreadableBatch when not UTF-8 text.

    Not core.jsonl: a bad line is kept as None, so the batch's report counts it instead of failing."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableBatch(f"{key} is not UTF-8 JSON lines: {exc}") from None
    parsed = []
    # Only "\n" ends a line: str.splitlines would also split inside text at U+0085, U+2028...
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            parsed.append((number, json.loads(line)))
        except json.JSONDecodeError:
            parsed.append((number, None))
    return parsed


@dataclass
class ParsedBatch:
    items: list[CorpusItem]
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> records


def parse_imported(data: bytes, key: str) -> ParsedBatch:
    """The valid items of an imported.jsonl; a bad line is counted under its reason and skipped."""
    parsed = ParsedBatch([])
    seen: set[str] = set()
    lines = _lines(data, key)
    if len(lines) > MAX_BATCH_ITEMS:
        raise UnreadableBatch(f"{key} holds {len(lines)} records, above the limit {MAX_BATCH_ITEMS}")
    for _, record in lines:
        if record is None:
            parsed.skipped["line is not JSON"] += 1
            continue
        try:
            item = item_from_record(record)
        except ValueError as exc:
            parsed.skipped[str(exc)] += 1
            continue
        if item.id in seen:
            parsed.skipped["duplicate item in the batch"] += 1
            continue
        seen.add(item.id)
        parsed.items.append(item)
    return parsed


def imported_bytes(items: Iterable[CorpusItem]) -> bytes:
    """Canonical JSON lines of distinct items, sorted by id. Of records sharing an id (e.g. equal
    options with another answer index) the smallest line is kept, so the order of `items` never matters."""
    lines: dict[str, bytes] = {}
    for item in items:
        line = canonical_bytes(item_record(item)) + b"\n"
        lines[item.id] = min(line, lines.get(item.id, line))
    return b"".join(lines[i] for i in sorted(lines))


def is_batch_id(text: str) -> bool:
    return _BATCH_ID.fullmatch(text) is not None


def batch_id_of(meta: Mapping[str, Any], imported: bytes) -> str:
    return hashlib.sha256(canonical_bytes(dict(meta)) + b"\n" + imported).hexdigest()[:32]


@dataclass(frozen=True)
class WrittenBatch:
    batch_id: str
    count: int
    item_ids: list[str]


def write_imported(store: ObjectStore, meta: Mapping[str, Any], items: Sequence[CorpusItem]) -> WrittenBatch:
    """Stores a batch (batch.json, then imported.jsonl) under its content id. `meta` needs `source`."""
    if not items:
        raise ValueError("a batch needs at least one item")
    data = imported_bytes(items)
    ids = sorted({it.id for it in items})
    if len(ids) > MAX_BATCH_ITEMS:
        raise ValueError(f"a batch holds at most {MAX_BATCH_ITEMS} items, got {len(ids)}")
    batch_id = batch_id_of(meta, data)
    keys = BatchKeys(batch_id)
    store.put_bytes(keys.meta, canonical_bytes({**meta, "batch_id": batch_id, "count": len(ids)}))
    store.put_bytes(keys.imported, data)
    return WrittenBatch(batch_id, len(ids), ids)


# Tagged items ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaggedItem:
    item: CorpusItem
    tags: list[tuple[str, float]]
    embedder: str
    embedding: np.ndarray  # float32 row


def tagged_line(tagged: TaggedItem) -> bytes:
    vector = np.ascontiguousarray(tagged.embedding, dtype="<f4")
    return canonical_bytes({"item": item_record(tagged.item), "tags": [[u, s] for u, s in tagged.tags],
                            "embedder": tagged.embedder,
                            "embedding_f32le": base64.b64encode(vector.tobytes()).decode("ascii")}) + b"\n"


def _tagged_from_record(record: Any) -> TaggedItem:
    if not isinstance(record, Mapping):
        raise ValueError("record is not a JSON object")
    item = item_from_record(record.get("item"))
    tags = record.get("tags")
    if not isinstance(tags, list) or not all(
            isinstance(t, list) and len(t) == 2 and isinstance(t[0], str) and isinstance(t[1], int | float)
            and not isinstance(t[1], bool) and math.isfinite(t[1]) for t in tags):
        raise ValueError("tags are not [unit id, score] pairs")
    embedder, encoded = record.get("embedder"), record.get("embedding_f32le")
    if not isinstance(embedder, str) or not embedder or not isinstance(encoded, str):
        raise ValueError("embedding or embedder missing")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except ValueError:
        raise ValueError("embedding is not base64") from None
    if not raw or len(raw) % 4:
        raise ValueError("embedding is not float32 values")
    vector = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    return TaggedItem(item, [(u, float(s)) for u, s in tags], embedder, vector)


def parse_tagged(data: bytes, key: str) -> tuple[list[TaggedItem], Counter[str]]:
    """The valid tagged items and the skipped reasons of a tagged.jsonl."""
    good: list[TaggedItem] = []
    skipped: Counter[str] = Counter()
    lines = _lines(data, key)
    if len(lines) > MAX_BATCH_ITEMS:
        raise UnreadableBatch(f"{key} holds {len(lines)} records, above the limit {MAX_BATCH_ITEMS}")
    for _, record in lines:
        try:
            good.append(_tagged_from_record(record))
        except ValueError as exc:
            skipped[str(exc) if record is not None else "line is not JSON"] += 1
    return good, skipped


# State -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BatchState:
    batch_id: str
    state: str                      # imported, tagged, indexed or failed
    meta: dict[str, Any]
    tag_report: dict[str, Any] | None
    report: dict[str, Any] | None   # indexed.json
    failure: dict[str, Any] | None


def _json(store: ObjectStore, key: str) -> dict[str, Any] | None:
    return dict(json.loads(store.get_bytes(key))) if store.exists(key) else None


def batch_state(store: ObjectStore, batch_id: str) -> BatchState | None:
    """Where a batch has got to; None for a batch that was never imported."""
    keys = BatchKeys(batch_id)
    meta = _json(store, keys.meta)
    if meta is None or not store.exists(keys.imported):
        return None
    report, tag_report = _json(store, keys.indexed), _json(store, keys.tag_report)
    failure = None
    if report is None:
        failure = _json(store, keys.failed("index")) or _json(store, keys.failed("tag"))
    if report is not None:
        state = "indexed"
    elif failure is not None:
        state = "failed"
    elif store.exists(keys.tagged):
        state = "tagged"
    else:
        state = "imported"
    return BatchState(batch_id, state, meta, tag_report, report, failure)


def get_batch(store: ObjectStore, batch_id: str) -> BatchState:
    """A batch's state for GetBatch; InvalidInput for a malformed id, NotFound for an unknown one."""
    if not is_batch_id(batch_id):
        raise InvalidInput("batch_id", "must be 32 lowercase hex digits")
    state = batch_state(store, batch_id)
    if state is None:
        raise NotFound("batch_id", f"no batch {batch_id}")
    return state


def record_failure(store: ObjectStore, batch_id: str, stage: str, error: str) -> None:
    """Notes beside a stored batch that `stage` gave it up (GetBatch reports it); ignores unknown batches
    and a stage that already wrote its output (a damaged or forged copy of its event fails nothing)."""
    if not is_batch_id(batch_id):
        return
    keys = BatchKeys(batch_id)
    done = keys.tagged if stage == "tag" else keys.indexed
    if store.exists(keys.imported) and not store.exists(done):
        store.put_bytes(keys.failed(stage), canonical_bytes({"stage": stage, "error": error}))


def clear_failure(store: ObjectStore, batch_id: str, stage: str) -> None:
    """An earlier delivery gave the stage up and this one got through: the failure note goes."""
    key = BatchKeys(batch_id).failed(stage)
    if store.exists(key):
        store.delete(key)
