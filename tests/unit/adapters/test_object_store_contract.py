"""ObjectStore contract on the filesystem adapter (the integration suite adds MinIO on SeaweedFS)."""

from __future__ import annotations

import os

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from tests.support.contracts.object_store import ObjectStoreContract


class TestFilesystemObjectStore(ObjectStoreContract):
    @pytest.fixture
    def store(self, tmp_path):
        return FilesystemObjectStore(tmp_path / "store")

    def test_failed_write_leaves_previous_value(self, store, monkeypatch):
        store.put_bytes("k", b"old")

        def boom(src, dst):
            raise OSError("disk full")

        monkeypatch.setattr(os, "replace", boom)
        with pytest.raises(OSError):
            store.put_bytes("k", b"new")
        monkeypatch.undo()
        assert store.get_bytes("k") == b"old"
        assert store.list_keys("") == ["k"]  # no temp file left behind
