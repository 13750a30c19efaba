"""The labelled relevance set (resources/relevance_gold): every pair names a packaged requirement,
a licence and one split per requirement; the fresh split's requirements are the `fresh_` files, the
train and broad splits' the `train_` and `broad_` files, and no item of theirs is judged in `heldout` or
`fresh` (they were drawn to fit models on)."""

from __future__ import annotations

import json
from collections import defaultdict
from importlib import resources

import yaml

from scicustom.core.build.quality_gate import REASONS
from scicustom.core.requirement import requirement_from_mapping

RESOURCES = resources.files("scicustom") / "resources"
GOLD = RESOURCES / "relevance_gold"


def _requirements() -> dict[str, object]:
    found = {}
    for folder in (RESOURCES / "requirements", GOLD / "requirements"):
        for entry in folder.iterdir():
            if entry.name.endswith(".yaml"):
                found[entry.name.removesuffix(".yaml")] = requirement_from_mapping(yaml.safe_load(entry.read_text()))
    return found


def test_every_pair_is_labelled_under_one_split_per_requirement():
    pairs = [json.loads(line) for line in (GOLD / "devset.jsonl").read_text(encoding="utf-8").splitlines() if line]
    requirements = _requirements()
    splits: dict[str, set[str]] = defaultdict(set)
    seen = set()
    for p in pairs:
        assert p["requirement"] in requirements, p["requirement"]
        assert isinstance(p["relevant"], bool) and p["licence"] and p["question"] and p["answer"] in p["options"]
        assert p.get("malformed") is None or p["malformed"] in REASONS
        assert (p["requirement"], p["item_id"]) not in seen
        seen.add((p["requirement"], p["item_id"]))
        splits[p["requirement"]].add(p["split"])
    assert all(len(s) == 1 for s in splits.values())
    fresh = {name for name, s in splits.items() if s == {"fresh"}}
    assert fresh == {name for name in splits if name.startswith("fresh_")} and len(fresh) >= 6
    train = {name for name, s in splits.items() if s == {"train"}}
    assert train == {name for name in splits if name.startswith("train_")} and len(train) >= 40
    broad = {name for name, s in splits.items() if s == {"broad"}}
    assert broad == {name for name in splits if name.startswith("broad_")} and len(broad) >= 10
    assert {s for ss in splits.values() for s in ss} == {"train", "dev", "heldout", "fresh", "broad"}
    measured = {p["item_id"] for p in pairs if p["split"] in ("heldout", "fresh")}
    assert not measured & {p["item_id"] for p in pairs if p["split"] in ("train", "broad")}
