"""A small finished build written by hand: five MCQs with 4 and 5 options from two sources with
different licences, one option over two lines, plus the config.json and voting.json a build writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LABELS = "ABCDE"


def _mcq(item_id: str, stem: str, choices: list[str], answer_index: int, source: str, licence: str,
         units: list[str], rank: int, method: str = "original") -> dict[str, Any]:
    query = "\n".join([stem, *(f"{LABELS[i]}. {c}" for i, c in enumerate(choices))])
    return {"id": item_id, "query": query, "answer": LABELS[answer_index], "choices": choices,
            "answer_index": answer_index, "distractor_method": method,
            "provenance": {"source_item_id": item_id, "source": source, "licence": licence, "units": units,
                           "candidate_rank": rank}}


MCQS = [
    _mcq("arc-1", "Which element is a halogen?", ["Sodium", "Chlorine", "Argon", "Iron"], 1,
         "arc", "CC-BY-SA-4.0", ["Periodic table"], 0),
    _mcq("sciq-1", "What is the oxidation state of Mn in KMnO4?", ["+2", "+4", "+6", "+7", "-1"], 3,
         "sciq", "CC-BY-NC-3.0", ["Oxidation state"], 1),
    _mcq("arc-2", "Which ligand is strong-field?", ["I-", "Br-", "CN-", "F-"], 2,
         "arc", "CC-BY-SA-4.0", ["Ligand field theory", "Coordination chemistry"], 2),
    _mcq("sciq-2", "Which has the largest atomic radius?", ["Li", "Na", "K", "Rb", "Cs, the heaviest\nstable alkali"],
         4, "sciq", "CC-BY-NC-3.0", ["Periodic table"], 3, "nearest-items"),
    _mcq("arc-3", "Noble gases are in group", ["1", "2", "17", "18"], 3,
         "arc", "CC-BY-SA-4.0", ["Periodic table"], 5),
]

CONFIG = {
    "scicustom_version": "0.1.0",
    "requirement": {"name": "inorganic chemistry (test)", "domain": "chemistry",
                    "description": "Questions on oxidation states, ligand fields and periodic trends."},
    "params": {"method": "scicustom", "k1": 10, "k2": 100, "proxy_samples": 100, "seed": 7,
               "relevance_quantile": 0.95, "min_items": 1},
    "corpus": {"items_sha256": "ab" * 32, "n_items": 36391, "tagger_version": "trained-test", "units_version": "1.0.0"},
    "judges": {"mode": "offline", "voting": ["minilm-units", "bm25-profiles"], "relevance": ["topic-terms"],
               "mcq_writer": "offline:nearest-items"},
    "coverage": {"status": "ok", "n_mcq": 5, "min_items": 1, "thin_units": ["Ligand field theory"]},
    "validity": {"estimated_on_topic": 0.8, "ci95": [0.6, 0.9]},
    "warnings": [],
}

VOTING = {"units": [{"id": "ku_1", "name": "Periodic table", "consensus_rank": 1.5},
                    {"id": "ku_2", "name": "Oxidation state", "consensus_rank": 2.0},
                    {"id": "ku_3", "name": "Ligand field theory", "consensus_rank": 3.25},
                    {"id": "ku_4", "name": "Solid-state chemistry", "consensus_rank": 9.0}],
          "per_judge": {}, "missing_rank": 642, "demoted_broad_units": []}


def write_build(directory: Path, mcqs: list[dict[str, Any]] | None = None) -> Path:
    directory.mkdir(parents=True)
    rows = MCQS if mcqs is None else mcqs
    (directory / "benchmark.jsonl").write_text("".join(json.dumps(m, sort_keys=True) + "\n" for m in rows))
    (directory / "config.json").write_text(json.dumps(CONFIG, indent=1))
    (directory / "voting.json").write_text(json.dumps(VOTING, indent=1))
    return directory
