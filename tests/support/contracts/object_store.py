"""The ObjectStore contract. A test class inherits it and provides a `store` fixture (empty store)."""

from __future__ import annotations

import hashlib
import threading

import pytest

from scicustom.adapters.content_addressed_store import ContentAddressedStore, ContentMismatch


class ObjectStoreContract:
    def test_put_get_round_trip_and_overwrite(self, store):
        store.put_bytes("a/b/c.bin", b"one")
        assert store.get_bytes("a/b/c.bin") == b"one"
        store.put_bytes("a/b/c.bin", b"two")
        assert store.get_bytes("a/b/c.bin") == b"two"
        assert store.exists("a/b/c.bin")

    def test_empty_and_binary_values_round_trip(self, store):
        payload = bytes(range(256)) * 4097  # ~1 MiB, every byte value
        store.put_bytes("bin", payload)
        store.put_bytes("empty", b"")
        assert store.get_bytes("bin") == payload
        assert store.get_bytes("empty") == b""
        assert store.exists("empty")

    def test_missing_key_raises_key_error(self, store):
        with pytest.raises(KeyError):
            store.get_bytes("nope")
        assert not store.exists("nope")

    def test_a_directory_like_prefix_is_not_an_object(self, store):
        store.put_bytes("dir/file", b".")
        assert not store.exists("dir")
        with pytest.raises(KeyError):
            store.get_bytes("dir")

    def test_list_by_prefix_is_sorted_and_string_prefixed(self, store):
        for key in ("x/2", "x/1", "y/1", "x2/1", "x/sub/3"):
            store.put_bytes(key, b".")
        assert store.list_keys("x/") == ["x/1", "x/2", "x/sub/3"]
        assert store.list_keys("x") == ["x/1", "x/2", "x/sub/3", "x2/1"]
        assert store.list_keys("x/s") == ["x/sub/3"]
        assert store.list_keys("") == ["x/1", "x/2", "x/sub/3", "x2/1", "y/1"]
        assert store.list_keys("z/") == []
        assert store.list_keys("../") == []

    def test_delete_is_idempotent_and_only_deletes_that_key(self, store):
        store.put_bytes("k", b"v")
        store.put_bytes("k2", b"v")
        store.delete("k")
        store.delete("k")
        store.delete("never-written")
        assert not store.exists("k")
        assert store.list_keys("") == ["k2"]

    @pytest.mark.parametrize("key", ["", "/abs", "../escape", "a/../../b", "a//b", "a/", "./a", ".hidden", "a/.tmp"])
    def test_invalid_keys_are_rejected(self, store, key):
        with pytest.raises(ValueError, match="invalid object key"):
            store.put_bytes(key, b"x")
        with pytest.raises(ValueError, match="invalid object key"):
            store.get_bytes(key)
        with pytest.raises(ValueError, match="invalid object key"):
            store.delete(key)

    def test_a_reader_sees_whole_old_or_whole_new_bytes(self, store):
        old, new = b"A" * 3_000_000, b"B" * 3_000_000
        store.put_bytes("blob", old)
        whole: list[bool] = []

        def writer() -> None:
            for i in range(6):
                store.put_bytes("blob", new if i % 2 == 0 else old)

        thread = threading.Thread(target=writer)
        thread.start()
        while thread.is_alive():
            whole.append(store.get_bytes("blob") in (old, new))
        thread.join()
        assert all(whole)
        assert store.get_bytes("blob") == old

    def test_content_addressed_put_returns_the_sha256_key_once(self, store):
        cas = ContentAddressedStore(store)
        digest = hashlib.sha256(b"payload").hexdigest()
        key = cas.put(b"payload")
        assert key == f"cas/sha256/{digest[:2]}/{digest}"
        assert cas.put(b"payload") == key
        assert store.list_keys("cas/") == [key]
        assert cas.get(key) == b"payload"
        assert cas.digest_of(key) == digest

    def test_content_addressed_get_detects_changed_bytes_and_missing_keys(self, store):
        cas = ContentAddressedStore(store, prefix="blobs/")
        key = cas.put(b"original")
        store.put_bytes(key, b"tampered")
        with pytest.raises(ContentMismatch):
            cas.get(key)
        with pytest.raises(KeyError):
            cas.get(cas.key_for(hashlib.sha256(b"absent").hexdigest()))
        with pytest.raises(ValueError, match="not a content-addressed key"):
            cas.get("blobs/zz/not-a-digest")
