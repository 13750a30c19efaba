"""The key rule every ObjectStore adapter enforces, so a key valid in one store is valid in all.

Keys are relative, '/'-separated paths. A segment may not be empty or start with '.': that rules
out '..' escapes, and names starting with '.' are reserved for the filesystem store's temp files.
A key is at most 1024 UTF-8 bytes (S3's limit) and a segment at most 200 (a file name's limit of 255,
less the filesystem store's temp-file affixes), so an over-long key from remote input is refused
alike everywhere instead of failing in one store.
"""

from __future__ import annotations

MAX_KEY_BYTES = 1024
MAX_SEGMENT_BYTES = 200


def check_key(key: str) -> str:
    parts = key.split("/")
    if not key or any(not part or part.startswith(".") for part in parts):
        raise ValueError(f"invalid object key {key[:200]!r}")
    if len(key.encode()) > MAX_KEY_BYTES or any(len(part.encode()) > MAX_SEGMENT_BYTES for part in parts):
        raise ValueError(f"invalid object key {key[:200]!r}: longer than {MAX_KEY_BYTES} bytes or a segment "
                         f"longer than {MAX_SEGMENT_BYTES}")
    return key
