"""A tiny tagged corpus in a fresh home, the way `scicustom corpus tag` leaves one: items, hashing
embeddings, tags, the unit index and index/current.json. Judges and retrieval run for real on it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.core.corpus_item import CorpusItem, make_item
from tests.support.hashing_embedder import HashingEmbedder
from tests.support.synthetic_world import TOPICS
from tests.support.tagged_store import store_tagged_corpus

TAGGER_VERSION = "test-tagger-v1"
# Units no item carries, so the embedding judges' outlier gate has a population to stand out from.
FILLER = ["Plate tectonics", "Galaxy formation", "Number theory", "Thermodynamics", "Optics", "Acoustics",
          "Crystallography", "Glaciology", "Seismology", "Oceanography", "Meteorology", "Volcanology",
          "Topology", "Combinatorics", "Cosmology", "Particle physics", "Fluid dynamics", "Electrochemistry",
          "Paleontology", "Mineralogy", "Hydrology", "Astrophysics", "Statistics", "Cryptography"]


def units_file(path: Path) -> Path:
    units = [{"id": u, "name": name, "domain": "d"} for u, (name, _) in TOPICS.items()]
    units += [{"id": f"f{i:02d}", "name": name, "domain": "d"} for i, name in enumerate(FILLER)]
    units.append({"id": "ns", "name": "Non-Scientific", "domain": "non-scientific"})
    path.write_text(json.dumps({"version": "test-1", "knowledge_units": units}), encoding="utf-8")
    return path


def empty_home(tmp_path: Path, **settings: object) -> Context:
    ctx = Context(Settings(home=tmp_path / "home", units_file=units_file(tmp_path / "units.json"), **settings))
    ctx.embedder = HashingEmbedder()  # type: ignore[misc]
    return ctx


def corpus_items(n_per_topic: int = 24) -> tuple[list[CorpusItem], dict[str, list[tuple[str, float]]]]:
    """Items on the four synthetic topics; a virology item every other one also carries Immune system."""
    items, tags = [], {}
    for unit, (name, phrases) in TOPICS.items():
        for k in range(n_per_topic):
            phrase = phrases[k % len(phrases)]
            item = make_item("synthetic", "CC0", name, f"Question {k} about the {phrase} in {name.lower()}?",
                             [f"{phrase} {j}" for j in range(4)], k % 4)
            items.append(item)
            tags[item.id] = [(unit, 0.9)] + ([("u4", 0.5)] if unit == "u1" and k % 2 else [])
    return items, tags


def tagged_home(tmp_path: Path, **settings: object) -> Context:
    ctx = empty_home(tmp_path, **settings)
    items, tags = corpus_items()
    store_tagged_corpus(ctx, items, tags, TAGGER_VERSION)
    return ctx


def item_vectors(ctx: Context) -> dict[str, np.ndarray]:
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    return {i: matrix[r] for r, i in enumerate(ids)}
