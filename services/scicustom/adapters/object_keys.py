"""The key rule every ObjectStore adapter enforces, so a key valid in one store is valid in all.

Keys are relative, '/'-separated paths. A segment may not be empty or start with '.': that rules
out '..' escapes, and names starting with '.' are reserved for the filesystem store's temp files.
"""

from __future__ import annotations


def check_key(key: str) -> str:
    if not key or any(not part or part.startswith(".") for part in key.split("/")):
        raise ValueError(f"invalid object key {key!r}")
    return key
