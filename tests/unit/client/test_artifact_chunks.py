"""DownloadArtifacts' use case on its own: bounded chunks, an empty file as one chunk, and a file
the store changed under the build refused before any of its bytes go out."""

from __future__ import annotations

import hashlib

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.app.build.artifact_download import file_chunks
from scicustom.core.errors import PreconditionFailed


def _entry(store, name: str, data: bytes) -> dict:
    key = f"builds/b1/output/{name}"
    store.put_bytes(key, data)
    return {"name": name, "key": key, "sha256": hashlib.sha256(data).hexdigest(), "size_bytes": len(data)}


def test_chunks_are_bounded_contiguous_and_the_last_carries_the_hash(tmp_path):
    store = FilesystemObjectStore(tmp_path)
    data = bytes(range(256)) * 10
    chunks = list(file_chunks(store, _entry(store, "benchmark.jsonl", data), chunk_bytes=1000))
    assert [(c.offset, len(c.data), c.last) for c in chunks] == [(0, 1000, False), (1000, 1000, False),
                                                                 (2000, 560, True)]
    assert b"".join(c.data for c in chunks) == data
    assert chunks[-1].sha256 == hashlib.sha256(data).hexdigest() and chunks[-1].size_bytes == len(data)
    assert all(c.sha256 == "" for c in chunks[:-1])
    (empty,) = file_chunks(store, _entry(store, "benchmark-thin.jsonl", b""), chunk_bytes=1000)
    assert (empty.offset, empty.data, empty.last, empty.size_bytes) == (0, b"", True, 0)


def test_a_file_that_changed_under_the_build_is_refused_before_its_first_chunk(tmp_path):
    store = FilesystemObjectStore(tmp_path)
    entry = _entry(store, "config.json", b'{"seed": 1}\n')
    store.put_bytes(entry["key"], b'{"seed": 2}\n')
    stream = file_chunks(store, entry)
    with pytest.raises(PreconditionFailed, match="does not match its recorded sha256"):
        next(stream)
