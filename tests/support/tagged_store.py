"""Store a small tagged corpus in a context the way `corpus import` + `corpus tag` leave it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.app.index_keys import CURRENT_INDEX_KEY
from scicustom.bootstrap import Context
from scicustom.core.corpus_item import CorpusItem


def store_tagged_corpus(ctx: Context, items: Sequence[CorpusItem],
                        tags: Mapping[str, list[tuple[str, float]]], tagger_version: str) -> None:
    """Items, their embeddings, the tags of `tagger_version`, its unit index, and the current pointer."""
    ctx.corpus.save_items(items)
    ids = sorted(it.id for it in items)
    by_id = {it.id: it for it in items}
    ctx.corpus.add_embeddings(ctx.embedder.name, ids, ctx.embedder.encode([by_id[i].text for i in ids]))
    ctx.corpus.save_tags(tagger_version, dict(tags))
    index_key = f"index/{tagger_version}/unit_index.npz"
    SparseUnitIndex.from_tags(tags, [u.id for u in ctx.catalog.units]).save(ctx.store, index_key)
    ctx.store.put_bytes(CURRENT_INDEX_KEY, json.dumps({"tagger_version": tagger_version, "index_key": index_key,
                                                       "embedder": ctx.embedder.name}).encode())
