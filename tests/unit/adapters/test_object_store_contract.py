"""ObjectStore contract. Every adapter of the port runs this same suite (MinIO joins it later)."""

from __future__ import annotations

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore


@pytest.fixture(params=["filesystem"])
def store(request, tmp_path):
    return FilesystemObjectStore(tmp_path / "store")


def test_put_get_round_trip_and_overwrite(store):
    store.put_bytes("a/b/c.bin", b"one")
    assert store.get_bytes("a/b/c.bin") == b"one"
    store.put_bytes("a/b/c.bin", b"two")
    assert store.get_bytes("a/b/c.bin") == b"two"


def test_missing_key_raises_key_error(store):
    with pytest.raises(KeyError):
        store.get_bytes("nope")
    assert not store.exists("nope")


def test_list_by_prefix_is_sorted_and_excludes_other_prefixes(store):
    for key in ("x/2", "x/1", "y/1", "x2/1"):
        store.put_bytes(key, b".")
    assert store.list_keys("x/") == ["x/1", "x/2"]
    assert store.list_keys("") == ["x/1", "x/2", "x2/1", "y/1"]


def test_delete_is_idempotent(store):
    store.put_bytes("k", b"v")
    store.delete("k")
    store.delete("k")
    assert not store.exists("k")


@pytest.mark.parametrize("key", ["", "/abs", "../escape", "a/../../b"])
def test_invalid_keys_are_rejected(store, key):
    with pytest.raises(ValueError, match="invalid object key"):
        store.put_bytes(key, b"x")


def test_failed_write_leaves_previous_value(store, monkeypatch):
    store.put_bytes("k", b"old")
    import os

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        store.put_bytes("k", b"new")
    monkeypatch.undo()
    assert store.get_bytes("k") == b"old"
    assert store.list_keys("") == ["k"]  # no temp file left behind
