"""The corpus as Parquet files in the ObjectStore: items, hardness scores, embeddings, tags.

Layout (keys):
  corpus/items.parquet           one row per item, sorted by id
  corpus/import_state.json       per source: fingerprint of what was imported
  corpus/hardness/<model>/<digest>.parquet   id, text digest, hardness: append-only, content-addressed
  corpus/embeddings/<model>/shard-NNNNN.npz   ids and vectors, append-only
  index/<tagger>/tags.parquet    id, unit ids best first, scores
  index/<tagger>/text_digests.parquet   id, digest of the text the item was tagged from

Batch shards (the ingestion workers; one writer per batch, so concurrent workers lose no update):
  corpus/items/batch-<id>.parquet, corpus/embeddings/<model>/batch-<id>.npz,
  index/<tagger>/tags/batch-<id>.parquet
The loaders return the union: the base file first, then the shards in key order; on equal ids
the later one wins. Shard bytes depend only on their content, so a batch written twice is equal.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from scicustom.core.corpus_item import CorpusItem
from scicustom.ports import ObjectStore

ITEMS_KEY = "corpus/items.parquet"
STATE_KEY = "corpus/import_state.json"
ITEM_SHARDS = "corpus/items/"
HARDNESS_PREFIX = "corpus/hardness/"
_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_BATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_BATCH_SHARD = re.compile(r"batch-[A-Za-z0-9_-]+\.(parquet|npz)")
_HARDNESS_SCHEMA = pa.schema([("id", pa.string()), ("text_digest", pa.string()), ("hardness", pa.float64())])
_TAGS_SCHEMA = pa.schema([("id", pa.string()), ("units", pa.list_(pa.string())), ("scores", pa.list_(pa.float64()))])
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed member times: a shard's bytes depend on its content only

_ITEM_SCHEMA = pa.schema([
    ("id", pa.string()), ("source", pa.string()), ("licence", pa.string()), ("subject", pa.string()),
    ("question", pa.string()), ("options", pa.list_(pa.string())), ("answer_index", pa.int32()),
    ("answer", pa.string()), ("format", pa.string()),
])


def _write_table(store: ObjectStore, key: str, table: pa.Table) -> None:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    store.put_bytes(key, sink.getvalue())


def _read_table(store: ObjectStore, key: str) -> pa.Table | None:
    if not store.exists(key):
        return None
    return pq.read_table(io.BytesIO(store.get_bytes(key)))


def _shard_keys(store: ObjectStore, prefix: str) -> list[str]:
    """The batch shards directly under `prefix`, in key order."""
    return sorted(k for k in store.list_keys(prefix) if _BATCH_SHARD.fullmatch(k[len(prefix):]))


def _tables(store: ObjectStore, base_key: str, shard_prefix: str) -> list[pa.Table]:
    """The base table (when present), then every batch shard in key order."""
    base = _read_table(store, base_key)
    shards = [pq.read_table(io.BytesIO(store.get_bytes(k))) for k in _shard_keys(store, shard_prefix)]
    return ([base] if base is not None else []) + shards


def batch_shard_name(batch_id: str, suffix: str) -> str:
    if not _BATCH_ID.fullmatch(batch_id):
        raise ValueError(f"batch id {batch_id!r} must be 1-128 letters, digits, '-' or '_'")
    return f"batch-{batch_id}.{suffix}"


def deterministic_npz(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz (what np.load reads) whose bytes depend only on the arrays: np.savez stamps the time."""
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_EPOCH), member.getvalue())
    return sink.getvalue()


class ParquetCorpusRepository:
    """`CorpusRepository` as Parquet tables and npz shards in the object store."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    # items -----------------------------------------------------------------------------------
    def save_items(self, items: Iterable[CorpusItem]) -> None:
        _write_table(self.store, ITEMS_KEY, _items_table(items))

    def save_item_shard(self, batch_id: str, items: Iterable[CorpusItem]) -> str:
        """Writes the batch's items as their own shard; returns its key."""
        key = ITEM_SHARDS + batch_shard_name(batch_id, "parquet")
        _write_table(self.store, key, _items_table(items))
        return key

    def remove_batch(self, batch_id: str) -> int:
        names = {batch_shard_name(batch_id, "parquet"), batch_shard_name(batch_id, "npz")}
        keys = [k for prefix in ("corpus/", "index/") for k in self.store.list_keys(prefix)
                if k.rsplit("/", 1)[-1] in names]
        for key in keys:
            self.store.delete(key)
        return len(keys)

    def load_items(self) -> list[CorpusItem]:
        merged: dict[str, CorpusItem] = {}
        for table in _tables(self.store, ITEMS_KEY, ITEM_SHARDS):
            for r in table.to_pylist():
                merged[r["id"]] = CorpusItem(
                    id=r["id"], source=r["source"], licence=r["licence"], subject=r["subject"],
                    question=r["question"], options=tuple(r["options"] or ()),
                    answer_index=r["answer_index"], answer=r["answer"], format=r["format"])
        return list(merged.values())

    def import_state(self) -> dict[str, str]:
        if not self.store.exists(STATE_KEY):
            return {}
        return dict(json.loads(self.store.get_bytes(STATE_KEY)))

    def save_import_state(self, state: dict[str, str]) -> None:
        self.store.put_bytes(STATE_KEY, json.dumps(state, sort_keys=True, indent=1).encode())

    # hardness cache -----------------------------------------------------------------------------
    # One new shard per write, named by its content: builds running side by side (cluster workers)
    # each add theirs and none overwrites another's; equal scores written twice are one file.
    def _hardness_prefix(self, model: str) -> str:
        if not _MODEL_NAME.fullmatch(model):
            raise ValueError(f"model name {model!r} must be 1-128 letters, digits, '.', '-' or '_'")
        return f"{HARDNESS_PREFIX}{model}/"

    def load_hardness(self, model: str) -> dict[tuple[str, str], float]:
        prefix = self._hardness_prefix(model)
        merged: dict[tuple[str, str], float] = {}
        for key in sorted(self.store.list_keys(prefix)):
            cols = pq.read_table(io.BytesIO(self.store.get_bytes(key))).to_pydict()
            merged.update(((i, d), h) for i, d, h in zip(cols["id"], cols["text_digest"], cols["hardness"],
                                                          strict=True))
        return merged

    def add_hardness(self, model: str, scores: dict[tuple[str, str], float]) -> str:
        keys = sorted(scores)
        table = pa.table({"id": [i for i, _ in keys], "text_digest": [d for _, d in keys],
                          "hardness": [scores[k] for k in keys]}, schema=_HARDNESS_SCHEMA)
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="zstd")
        data = sink.getvalue()
        key = f"{self._hardness_prefix(model)}{hashlib.sha256(data).hexdigest()[:32]}.parquet"
        self.store.put_bytes(key, data)
        return key

    # embeddings ---------------------------------------------------------------------------------
    # Append-only shards: adding items writes one new file, never rewrites what is stored. The
    # numbered shards are the base; batch shards follow them.
    def load_embeddings(self, model: str) -> tuple[list[str], np.ndarray]:
        prefix = f"corpus/embeddings/{model}/"
        batches = _shard_keys(self.store, prefix)
        numbered = [k for k in self.store.list_keys(prefix) if k not in set(batches)]
        ids: list[str] = []
        blocks = []
        for key in numbered + batches:
            with np.load(io.BytesIO(self.store.get_bytes(key))) as shard:
                ids.extend(str(i) for i in shard["ids"])
                blocks.append(shard["vectors"])
        if not blocks:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.vstack(blocks)
        row = {item_id: r for r, item_id in enumerate(ids)}  # the last row of an id wins
        if len(row) == len(ids):
            return ids, matrix
        first = list(dict.fromkeys(ids))
        return first, matrix[[row[i] for i in first]]

    def add_embeddings(self, model: str, ids: Sequence[str], vectors: np.ndarray) -> None:
        if len(ids) != len(vectors):
            raise ValueError("one vector per id")
        if not ids:
            return
        prefix = f"corpus/embeddings/{model}/"
        number = len(set(self.store.list_keys(prefix)) - set(_shard_keys(self.store, prefix)))
        sink = io.BytesIO()
        np.savez(sink, ids=np.asarray(ids), vectors=vectors.astype(np.float32))
        self.store.put_bytes(f"{prefix}shard-{number:05d}.npz", sink.getvalue())

    def save_embeddings_shard(self, model: str, batch_id: str, ids: Sequence[str], vectors: np.ndarray) -> str:
        if len(ids) != len(vectors):
            raise ValueError("one vector per id")
        key = f"corpus/embeddings/{model}/" + batch_shard_name(batch_id, "npz")
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2:
            raise ValueError("vectors must be one row per id")
        self.store.put_bytes(key, deterministic_npz({"ids": np.asarray(list(ids), dtype=str), "vectors": matrix}))
        return key

    # tags -----------------------------------------------------------------------------------------
    def tags_key(self, tagger_version: str) -> str:
        return f"index/{tagger_version}/tags.parquet"

    def load_tags(self, tagger_version: str) -> dict[str, list[tuple[str, float]]]:
        merged: dict[str, list[tuple[str, float]]] = {}
        for table in _tables(self.store, self.tags_key(tagger_version), f"index/{tagger_version}/tags/"):
            cols = table.to_pydict()
            merged.update((i, list(zip(u, s, strict=True)))
                          for i, u, s in zip(cols["id"], cols["units"], cols["scores"], strict=True))
        return merged

    def save_tags(self, tagger_version: str, tags: dict[str, list[tuple[str, float]]]) -> None:
        _write_table(self.store, self.tags_key(tagger_version), _tags_table(tags))

    def save_tags_shard(self, tagger_version: str, batch_id: str, tags: dict[str, list[tuple[str, float]]]) -> str:
        key = f"index/{tagger_version}/tags/" + batch_shard_name(batch_id, "parquet")
        _write_table(self.store, key, _tags_table(tags))
        return key

    def _digests_key(self, tagger_version: str) -> str:
        return f"index/{tagger_version}/text_digests.parquet"

    def load_text_digests(self, tagger_version: str) -> dict[str, str]:
        table = _read_table(self.store, self._digests_key(tagger_version))
        if table is None:
            return {}
        cols = table.to_pydict()
        return dict(zip(cols["id"], cols["digest"], strict=True))

    def save_text_digests(self, tagger_version: str, digests: dict[str, str]) -> None:
        ids = sorted(digests)
        _write_table(self.store, self._digests_key(tagger_version),
                     pa.table({"id": ids, "digest": [digests[i] for i in ids]}))


def _items_table(items: Iterable[CorpusItem]) -> pa.Table:
    rows = sorted(items, key=lambda it: it.id)
    return pa.table({
        "id": [i.id for i in rows], "source": [i.source for i in rows],
        "licence": [i.licence for i in rows], "subject": [i.subject for i in rows],
        "question": [i.question for i in rows], "options": [list(i.options) for i in rows],
        "answer_index": [i.answer_index for i in rows], "answer": [i.answer for i in rows],
        "format": [i.format for i in rows],
    }, schema=_ITEM_SCHEMA)


def _tags_table(tags: dict[str, list[tuple[str, float]]]) -> pa.Table:
    ids = sorted(tags)
    return pa.table({"id": ids, "units": [[u for u, _ in tags[i]] for i in ids],
                     "scores": [[float(s) for _, s in tags[i]] for i in ids]}, schema=_TAGS_SCHEMA)
