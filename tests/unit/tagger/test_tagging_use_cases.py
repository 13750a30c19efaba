"""The tagger use cases' own checks: request limits, and the order in which they ask for ports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore, save_artifact
from scicustom.app.tagging.tagger_export import serving_directory
from scicustom.app.tagging.text_tagging import MAX_BATCH, NamedUnitScore, tag_text, tag_texts
from scicustom.app.tagging.training_requests import TrainRequest
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.units import UnitCatalog
from scicustom.ports import Tagger, UnitScore

CATALOG = UnitCatalog.from_mapping({"version": "t", "knowledge_units": [
    {"id": "u1", "name": "Virology", "domain": "medicine"}, {"id": "u2", "name": "Optics", "domain": "physics"}]})


class FixedTagger(Tagger):
    version = "fixed-v1"

    def __init__(self, units: list[UnitScore]) -> None:
        self.units = units
        self.calls = 0

    def tag(self, texts: Sequence[str], vectors: object = None) -> list[list[UnitScore]]:
        self.calls += 1
        return [list(self.units) for _ in texts]


def _never() -> Tagger:
    raise AssertionError("the tagger was asked for before the request was checked")


@pytest.mark.parametrize("request_", [TrainRequest(synthetic=0), TrainRequest(epochs=0),
                                      TrainRequest(keyword_heldout=1.0), TrainRequest(keyword_heldout=-0.1)])
def test_train_request_limits(request_: TrainRequest) -> None:
    with pytest.raises(InvalidInput, match=r"^tagger train: --synthetic and --epochs must be >= 1"):
        request_.check()
    TrainRequest(synthetic=1, epochs=1, keyword_heldout=0.0).check()


def test_text_tagging_checks_the_request_before_it_asks_for_the_tagger() -> None:
    with pytest.raises(InvalidInput, match=r"^text: is empty$"):
        tag_text("  ", 0, _never, lambda: CATALOG)
    with pytest.raises(InvalidInput, match=rf"^texts: has {MAX_BATCH + 1} entries, above the limit {MAX_BATCH}$"):
        tag_texts(["ok"] * (MAX_BATCH + 1), 0, _never, lambda: CATALOG)
    with pytest.raises(InvalidInput, match=r"^texts\[1\]: has 8001 characters, above the limit 8000$"):
        tag_texts(["ok", "x" * 8001], 0, _never, lambda: CATALOG)


def test_text_tagging_names_units_keeps_top_k_and_refuses_units_outside_the_catalog() -> None:
    tagger = FixedTagger([UnitScore("u2", 0.9), UnitScore("u1", 0.4)])
    result = tag_texts(["lens", "virus"], 1, lambda: tagger, lambda: CATALOG)
    assert result.tagger_version == "fixed-v1" and tagger.calls == 1
    assert result.tags == [[NamedUnitScore("u2", "Optics", 0.9)]] * 2
    assert tag_text("lens", 0, lambda: tagger, lambda: CATALOG).tags[0][1] == NamedUnitScore("u1", "Virology", 0.4)
    stranger = FixedTagger([UnitScore("u9", 0.5)])
    with pytest.raises(PreconditionFailed, match="'u9'"):
        tag_text("lens", 0, lambda: stranger, lambda: CATALOG)


def test_serving_checks_ports_batch_limit_and_version(tmp_path: Path) -> None:
    store = TaggerArtifactStore(tmp_path / "models" / "tagger")
    with pytest.raises(PreconditionFailed, match="no trained tagger under"):
        serving_directory(store, None, 8080, 8081, 256)
    for ports, message in (((0, 8081), "--http-port: 0 is not a port"), ((8080, 65536), "--grpc-port: 65536")):
        with pytest.raises(InvalidInput, match=message):
            serving_directory(store, None, *ports, 256)
    with pytest.raises(InvalidInput, match="--max-batch: must be >= 1"):
        serving_directory(store, None, 8080, 8081, 0)
    artifact = save_artifact(store.root, b"not a model", b"{}", ["u1"], ["Virology"], ["medicine"],
                             np.array([0.5], dtype=np.float32), 16, 8, {})
    assert serving_directory(store, None, 8080, 8081, 1) == artifact.directory
    with pytest.raises(InvalidInput, match=r"^--version: no trained tagger in .*/nope$"):
        serving_directory(store, "nope", 8080, 8081, 1)
