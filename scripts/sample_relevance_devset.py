"""Sample (requirement, item) pairs for the relevance development set (issue 13).

Tagger-independent on purpose (the tagger changes under the builds): for each requirement the
pools are what the embedding builds retrieve (MiniLM top items of the requirement's topic text),
what a lexical build retrieves (BM25 top items) and same-field distractors (MiniLM ranks 40-300,
seeded). Labels are added by a person reading each item; see RUBRIC.md.

    SCICUSTOM_HOME=... .venv/bin/python scripts/sample_relevance_devset.py OUT.jsonl
    ... scripts/sample_relevance_devset.py OUT.jsonl --split fresh --requirements FILE.yaml ...
    ... scripts/sample_relevance_devset.py OUT.jsonl --split train \
        --requirements .../relevance_gold/requirements/train_*.yaml --skip-items-of heldout,fresh

--skip-items-of: leave out the items the labelled set already judges in these splits (the measured
ones), so that a model trained on the new pairs never saw an item it is measured on. The other
picks are not replaced: the draw stays the same as without the option, less those items.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from scicustom.bootstrap import Context
from scicustom.core.lexical import BM25
from scicustom.core.requirement import requirement_from_mapping

ROOT = Path(__file__).resolve().parents[1] / "services/scicustom/resources"
TOP_EMBED, TOP_LEXICAL, FIELD = 12, 8, 5


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--requirements", type=Path, nargs="*", help="only these requirement files")
    parser.add_argument("--split", help="the split of every pair (otherwise set when labelling)")
    parser.add_argument("--skip-items-of", default="", metavar="SPLITS",
                        help="comma-separated splits of devset.jsonl whose items are not drawn again")
    args = parser.parse_args()
    import yaml

    skip: set[str] = set()
    if args.skip_items_of:
        skip_splits = {s for s in args.skip_items_of.split(",") if s}
        devset = (ROOT / "relevance_gold/devset.jsonl").read_text(encoding="utf-8")
        judged = [json.loads(line) for line in devset.splitlines() if line]
        unknown = skip_splits - {p["split"] for p in judged}
        if unknown:
            parser.error(f"--skip-items-of: no split {sorted(unknown)} in devset.jsonl")
        skip = {p["item_id"] for p in judged if p["split"] in skip_splits}

    files = args.requirements or (sorted((ROOT / "requirements").glob("*.yaml"))
                                  + sorted((ROOT / "relevance_gold/requirements").glob("*.yaml")))
    ctx = Context.from_environment()
    items = {it.id: it for it in ctx.corpus.load_items()}
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    ids = [i for i in ids]
    bm25 = BM25([items[i].text for i in ids])
    rng = np.random.default_rng(13)
    rows = []
    for f in files:
        req = requirement_from_mapping(yaml.safe_load(f.read_text()))
        sims = matrix @ ctx.embedder.encode([req.topic_text])[0]
        order = [int(i) for i in np.argsort(-sims, kind="stable")]
        lex = [int(i) for i in np.argsort(-bm25.scores(req.topic_text), kind="stable")]
        picked: list[tuple[int, str]] = [(i, "minilm-top") for i in order[:TOP_EMBED]]
        for i in lex:
            if sum(p == "bm25-top" for _, p in picked) >= TOP_LEXICAL:
                break
            if i not in {j for j, _ in picked}:
                picked.append((i, "bm25-top"))
        field = [i for i in order[40:300] if i not in {j for j, _ in picked}]
        picked += [(int(i), "same-field") for i in rng.choice(field, FIELD, replace=False)]
        for i, pool in picked:
            it = items[ids[i]]
            rows.append({"requirement": f.stem, "item_id": it.id, "pool": pool, "source": it.source,
                         "licence": it.licence, **({"split": args.split} if args.split else {}),
                         "question": it.question, "options": list(it.options), "answer": it.answer})
    rows = [r for r in rows if r["item_id"] not in skip]
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(len(rows))


if __name__ == "__main__":
    main()
