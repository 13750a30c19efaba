"""The hand-labelled real questions (resources/tagger_gold/*.jsonl) and the tagger's scores on them.

Each line is a corpus item as the corpus stores it plus `gold`: 1-5 unit names chosen by reading
(RUBRIC.md beside the files), most specific first, and `split`: `train` items train the tagger,
`dev` items calibrate and tune it, `heldout` items only measure it. Items no unit fits
(`gold: []`) are kept in the files and left out of every score.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.errors import InvalidInput
from scicustom.core.jsonl import parse_jsonl
from scicustom.core.tagger_training.dataset import LabelledText
from scicustom.core.tagger_training.metrics import fuzzy_f1, fuzzy_match
from scicustom.core.units import UnitCatalog

SPLITS = ("train", "dev", "heldout")


@dataclass(frozen=True)
class GoldItem:
    item: CorpusItem
    split: str
    gold: tuple[str, ...]  # unit names, most specific first


def parse_gold_set(lines: Iterable[str], catalog: UnitCatalog, where: str, *,
                   skip_unknown: bool = False) -> list[GoldItem]:
    """Labelled items (those with at least one gold unit). A gold name that is not a unit of
    `catalog` is an error, or with `skip_unknown` drops its item (a smaller unit set)."""
    names = {u.name for u in catalog.units}
    items = []
    for location, row in parse_jsonl(lines, where):
        gold = row.get("gold")
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold) or len(gold) > 5:
            raise InvalidInput(location, "gold must be a list of at most 5 unit names")
        unknown = [g for g in gold if g not in names]
        if unknown and skip_unknown:
            continue
        if unknown:
            raise InvalidInput(location, f"gold names units not in the unit set: {unknown}")
        if row.get("split") not in SPLITS:
            raise InvalidInput(location, f"split must be one of {SPLITS}")
        if not gold:
            continue
        options = tuple(row.get("options") or ())
        answer = str(row["answer"])
        item = CorpusItem(id=str(row["id"]), source=str(row["source"]), licence=str(row["licence"]),
                          subject=str(row.get("subject", "")), question=str(row["question"]), options=options,
                          answer_index=options.index(answer) if answer in options else None, answer=answer,
                          format="mcq" if options else "open")
        items.append(GoldItem(item, str(row["split"]), tuple(gold)))
    return items


def gold_scores(catalog: UnitCatalog, gold: Sequence[GoldItem], predicted: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Fuzzy micro/macro F1 (the paper's protocol), top-1 hit (the best unit is a gold unit) and
    domain agreement (the best unit's domain is a gold unit's domain) of predicted unit names."""
    if len(gold) != len(predicted):
        raise ValueError("one prediction per gold item")
    report = fuzzy_f1(predicted, [g.gold for g in gold])
    domain_of = {u.name: u.domain for u in catalog.units}
    top1 = [bool(p) and any(fuzzy_match(p[0], g) for g in item.gold) for item, p in zip(gold, predicted, strict=True)]
    domain = [bool(p) and domain_of.get(p[0]) in {domain_of[g] for g in item.gold}
              for item, p in zip(gold, predicted, strict=True)]
    n = max(len(gold), 1)
    return {"items": len(gold), "micro_f1": round(report.micro_f1, 4), "macro_f1": round(report.macro_f1, 4),
            "micro_precision": round(report.micro_precision, 4), "micro_recall": round(report.micro_recall, 4),
            "top1_hit": round(sum(top1) / n, 4), "domain_agreement": round(sum(domain) / n, 4),
            "mean_units": round(sum(len(p) for p in predicted) / n, 3)}


def gold_examples(catalog: UnitCatalog, gold: Sequence[GoldItem], repeats: int = 1) -> list[LabelledText]:
    """Training or calibration examples of labelled items, each repeated `repeats` times."""
    id_of = {u.name: u.id for u in catalog.units}
    once = [LabelledText(g.item.text, tuple(id_of[n] for n in g.gold), f"gold:{g.item.source}", g.item.id,
                         g.item.subject) for g in gold]
    return [ex for ex in once for _ in range(repeats)]
