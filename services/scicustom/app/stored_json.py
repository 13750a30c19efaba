"""Small JSON records in the object store (paper states, standing builds): read one, or None when
absent; write one as canonical bytes (sorted keys), so equal records are equal objects."""

from __future__ import annotations

import json
from typing import Any

from scicustom.core.canonical_json import canonical_bytes
from scicustom.ports import ObjectStore


def read_json(store: ObjectStore, key: str) -> dict[str, Any] | None:
    try:
        return dict(json.loads(store.get_bytes(key)))
    except KeyError:
        return None


def write_json(store: ObjectStore, key: str, record: dict[str, Any]) -> None:
    store.put_bytes(key, canonical_bytes(record))
