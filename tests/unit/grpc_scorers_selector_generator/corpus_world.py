"""A small tagged corpus in a fresh home, the way `scicustom corpus tag` leaves one (items, hashing
embeddings, tags, unit index, index/current.json), with open and multiple-choice items."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.core.corpus_item import CorpusItem, make_item
from tests.support.hashing_embedder import HashingEmbedder
from tests.support.synthetic_world import TOPICS
from tests.support.tagged_store import store_tagged_corpus

TAGGER_VERSION = "test-tagger-v1"


class LengthPerplexity:
    """AnswerPerplexity from the answer's length: deterministic, and it records what it scored."""

    name = "length-test"

    def __init__(self) -> None:
        self.scored: list[tuple[str, str]] = []

    def perplexities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.scored.extend(pairs)
        return np.array([1.0 + len(answer) / 7.0 for _, answer in pairs])


def units_file(path: Path) -> Path:
    units = [{"id": u, "name": name, "domain": "d"} for u, (name, _) in TOPICS.items()]
    units.append({"id": "ns", "name": "Non-Scientific", "domain": "non-scientific"})
    path.write_text(json.dumps({"version": "test-1", "knowledge_units": units}), encoding="utf-8")
    return path


def empty_context(tmp_path: Path, **settings: object) -> Context:
    ctx = Context(Settings(home=tmp_path / "home", units_file=units_file(tmp_path / "units.json"),
                           **settings))  # type: ignore[arg-type]
    ctx.embedder = HashingEmbedder()  # type: ignore[misc]
    ctx.perplexity = LengthPerplexity()  # type: ignore[misc]
    return ctx


def corpus_items(per_topic: int = 15) -> tuple[list[CorpusItem], dict[str, list[tuple[str, float]]]]:
    """Every third item open (answers repeat, so distractors need de-duplicating), one item with six
    options per topic, the rest four options; a virology item every other one also carries Immune
    system; one open item carries only the non-scientific unit (no neighbours)."""
    items, tags = [], {}
    for unit, (name, phrases) in TOPICS.items():
        for k in range(per_topic):
            phrase = phrases[k % len(phrases)]
            question = f"Question {k} about the {phrase} in {name.lower()}?"
            if k % 3 == 0:
                item = make_item("synthetic", "CC0", name, question, [], None, f"The {phrase} answer {k % 4}")
            else:
                n_options = 6 if k == 1 else 4
                item = make_item("synthetic", "CC-BY", name, question, [f"{phrase} {j}" for j in range(n_options)],
                                 k % n_options)
            items.append(item)
            tags[item.id] = [(unit, 0.9)] + ([("u4", 0.5)] if unit == "u1" and k % 2 else [])
    lonely = make_item("synthetic", "CC0", "misc", "What is the capital of France?", [], None, "Paris")
    items.append(lonely)
    tags[lonely.id] = [("ns", 0.8)]
    return items, tags


def tagged_context(tmp_path: Path, per_topic: int = 15, **settings: object) -> Context:
    ctx = empty_context(tmp_path, **settings)
    items, tags = corpus_items(per_topic)
    store_tagged_corpus(ctx, items, tags, TAGGER_VERSION)
    return ctx
