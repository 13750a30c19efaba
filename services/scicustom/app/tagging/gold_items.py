"""The packaged hand-labelled real questions the tagger trains, calibrates and is measured on."""

from __future__ import annotations

from scicustom.config import RESOURCES
from scicustom.core.tagger_training.gold_set import GoldItem, parse_gold_set
from scicustom.core.units import UnitCatalog

GOLD_DIR = RESOURCES / "tagger_gold"
GOLD_FILES = ("train.jsonl", "devset.jsonl")  # train: training only; devset: `dev` calibrates, `heldout` measures


def packaged_gold_items(catalog: UnitCatalog) -> list[GoldItem]:
    """The labelled items whose gold units all belong to `catalog` (none for a foreign unit set)."""
    items: list[GoldItem] = []
    for name in GOLD_FILES:
        with (GOLD_DIR / name).open(encoding="utf-8") as handle:
            items += parse_gold_set(handle, catalog, f"tagger_gold/{name}", skip_unknown=True)
    return items
