"""Canonical JSON bytes: one encoding for every stored record whose bytes are hashed or compared."""

from __future__ import annotations

import json
from typing import Any


def canonical_bytes(record: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8 kept as is: equal records give equal bytes (and digests)."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
