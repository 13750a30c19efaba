"""The corpus as Parquet files in the ObjectStore: items, intrinsic scores, embeddings, tags.

Layout (keys):
  corpus/items.parquet           one row per item, sorted by id
  corpus/import_state.json       per source: fingerprint of what was imported
  corpus/intrinsic.parquet       id, quality, hardness (computed lazily or eagerly, once per item)
  corpus/embeddings/<model>/shard-NNNNN.npz   ids and vectors, append-only
  index/<tagger>/tags.parquet    id, unit ids best first, scores
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from scicustom.core.corpus_item import CorpusItem
from scicustom.ports import ObjectStore

ITEMS_KEY = "corpus/items.parquet"
STATE_KEY = "corpus/import_state.json"
INTRINSIC_KEY = "corpus/intrinsic.parquet"

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


class CorpusRepository:
    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    # items -----------------------------------------------------------------------------------
    def save_items(self, items: Iterable[CorpusItem]) -> None:
        rows = sorted(items, key=lambda it: it.id)
        table = pa.table({
            "id": [i.id for i in rows], "source": [i.source for i in rows],
            "licence": [i.licence for i in rows], "subject": [i.subject for i in rows],
            "question": [i.question for i in rows], "options": [list(i.options) for i in rows],
            "answer_index": [i.answer_index for i in rows], "answer": [i.answer for i in rows],
            "format": [i.format for i in rows],
        }, schema=_ITEM_SCHEMA)
        _write_table(self.store, ITEMS_KEY, table)

    def load_items(self) -> list[CorpusItem]:
        table = _read_table(self.store, ITEMS_KEY)
        if table is None:
            return []
        return [
            CorpusItem(id=r["id"], source=r["source"], licence=r["licence"], subject=r["subject"],
                       question=r["question"], options=tuple(r["options"] or ()),
                       answer_index=r["answer_index"], answer=r["answer"], format=r["format"])
            for r in table.to_pylist()
        ]

    def import_state(self) -> dict[str, str]:
        if not self.store.exists(STATE_KEY):
            return {}
        return dict(json.loads(self.store.get_bytes(STATE_KEY)))

    def save_import_state(self, state: dict[str, str]) -> None:
        self.store.put_bytes(STATE_KEY, json.dumps(state, sort_keys=True, indent=1).encode())

    # intrinsic scores --------------------------------------------------------------------------
    def load_intrinsic(self) -> dict[str, tuple[float, float]]:
        table = _read_table(self.store, INTRINSIC_KEY)
        if table is None:
            return {}
        cols = table.to_pydict()
        return {i: (q, h) for i, q, h in zip(cols["id"], cols["quality"], cols["hardness"], strict=True)}

    def add_intrinsic(self, scores: dict[str, tuple[float, float]]) -> None:
        merged = {**self.load_intrinsic(), **scores}
        ids = sorted(merged)
        table = pa.table({"id": ids, "quality": [merged[i][0] for i in ids],
                          "hardness": [merged[i][1] for i in ids]})
        _write_table(self.store, INTRINSIC_KEY, table)

    # embeddings ---------------------------------------------------------------------------------
    # Append-only shards: adding items writes one new file, never rewrites what is stored.
    def load_embeddings(self, model: str) -> tuple[list[str], np.ndarray]:
        ids: list[str] = []
        blocks = []
        for key in self.store.list_keys(f"corpus/embeddings/{model}/"):
            with np.load(io.BytesIO(self.store.get_bytes(key))) as shard:
                ids.extend(str(i) for i in shard["ids"])
                blocks.append(shard["vectors"])
        if not blocks:
            return [], np.zeros((0, 0), dtype=np.float32)
        return ids, np.vstack(blocks)

    def add_embeddings(self, model: str, ids: Sequence[str], vectors: np.ndarray) -> None:
        if len(ids) != len(vectors):
            raise ValueError("one vector per id")
        if not ids:
            return
        number = len(self.store.list_keys(f"corpus/embeddings/{model}/"))
        sink = io.BytesIO()
        np.savez(sink, ids=np.asarray(ids), vectors=vectors.astype(np.float32))
        self.store.put_bytes(f"corpus/embeddings/{model}/shard-{number:05d}.npz", sink.getvalue())

    # tags -----------------------------------------------------------------------------------------
    def tags_key(self, tagger_version: str) -> str:
        return f"index/{tagger_version}/tags.parquet"

    def load_tags(self, tagger_version: str) -> dict[str, list[tuple[str, float]]]:
        table = _read_table(self.store, self.tags_key(tagger_version))
        if table is None:
            return {}
        cols = table.to_pydict()
        return {i: list(zip(u, s, strict=True))
                for i, u, s in zip(cols["id"], cols["units"], cols["scores"], strict=True)}

    def save_tags(self, tagger_version: str, tags: dict[str, list[tuple[str, float]]]) -> None:
        ids = sorted(tags)
        table = pa.table({"id": ids, "units": [[u for u, _ in tags[i]] for i in ids],
                          "scores": [[float(s) for _, s in tags[i]] for i in ids]})
        _write_table(self.store, self.tags_key(tagger_version), table)
