"""Content-addressed blobs on any ObjectStore: the key is the SHA-256 of the bytes.

Equal content gets the same key, so a repeated write is a no-op and a key pins exact bytes (events
carry keys and hashes of large payloads). Reads verify the digest, catching a corrupted object.
"""

from __future__ import annotations

import hashlib
import re

from scicustom.ports import ObjectStore

_DIGEST = re.compile(r"[0-9a-f]{64}")


class ContentMismatch(ValueError):
    """The stored bytes no longer hash to their key."""


class ContentAddressedStore:
    def __init__(self, store: ObjectStore, prefix: str = "cas/sha256/") -> None:
        if prefix and not prefix.endswith("/"):
            raise ValueError(f"prefix {prefix!r} must end with '/'")
        self.store = store
        self.prefix = prefix

    def key_for(self, digest: str) -> str:
        if not _DIGEST.fullmatch(digest):
            raise ValueError(f"not a lowercase hex SHA-256 digest: {digest!r}")
        # Two-character fan-out keeps listings and filesystem directories small.
        return f"{self.prefix}{digest[:2]}/{digest}"

    def put(self, data: bytes) -> str:
        """Store `data` once; returns its key (prefix + fan-out + hex SHA-256)."""
        key = self.key_for(hashlib.sha256(data).hexdigest())
        if not self.store.exists(key):
            self.store.put_bytes(key, data)
        return key

    def get(self, key: str) -> bytes:
        """The bytes under `key`; KeyError when absent, ContentMismatch when they do not hash to it."""
        digest = self.digest_of(key)
        data = self.store.get_bytes(key)
        if hashlib.sha256(data).hexdigest() != digest:
            raise ContentMismatch(f"{key}: stored bytes hash to a different digest")
        return data

    def digest_of(self, key: str) -> str:
        digest = key.rsplit("/", 1)[-1]
        if not _DIGEST.fullmatch(digest) or self.key_for(digest) != key:
            raise ValueError(f"{key!r} is not a content-addressed key under {self.prefix!r}")
        return digest
