"""`cluster use-served-tagger`: the trained version the model server serves becomes the current
index, so the tag worker and builds of a fresh cluster take the remote trained tagger, not the
zero-shot baseline."""

from __future__ import annotations

import json

import pytest

from scicustom.app.index_keys import CURRENT_INDEX_KEY
from scicustom.app.tagging.trained_tagging import use_served_tagger
from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.core.errors import PreconditionFailed


def test_the_served_trained_version_becomes_current_and_the_worker_tags_remotely(tmp_path):
    ctx = Context(Settings(home=tmp_path, tagger_url="127.0.0.1:9"))
    current = use_served_tagger(ctx.store, "trained-8a5f4a2a1a6e", "all-MiniLM-L6-v2")
    assert json.loads(ctx.store.get_bytes(CURRENT_INDEX_KEY)) == current == {
        "tagger_version": "trained-8a5f4a2a1a6e", "index_key": "index/trained-8a5f4a2a1a6e/unit_index.npz",
        "embedder": "all-MiniLM-L6-v2"}
    asked = []
    remote = object()

    def remote_tagger(url, protocol="grpc", model_name="tagger"):
        asked.append((url, protocol, model_name))
        return remote

    ctx.remote_tagger = remote_tagger  # type: ignore[method-assign]
    assert ctx.tagger is remote
    assert asked == [("127.0.0.1:9", "grpc", "tagger")]


def test_a_version_that_is_not_trained_is_refused(tmp_path):
    ctx = Context(Settings(home=tmp_path))
    with pytest.raises(PreconditionFailed, match="not a trained version"):
        use_served_tagger(ctx.store, "zeroshot-abc", "all-MiniLM-L6-v2")
    assert not ctx.store.exists(CURRENT_INDEX_KEY)


def test_the_command_needs_the_model_server(tmp_path, monkeypatch):
    from scicustom.cli import main

    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    monkeypatch.delenv("SCICUSTOM_TAGGER_URL", raising=False)
    assert main(["cluster", "use-served-tagger"]) != 0
