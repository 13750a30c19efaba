"""`ontology keywords`: anchor a unit set (default: the paper's 642 units) to the imported ontology
and derive each unit's keyword set K_v; report coverage and the units left thin."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.app.ontology.importing import imported_dags
from scicustom.app.ontology.workspace import OntologyWorkspace
from scicustom.core.atomic_files import write_json_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.anchoring import (
    Anchor,
    EmbeddingCandidates,
    NodeRef,
    TermIndex,
    TextEncoder,
    anchor_units,
)
from scicustom.core.ontology.dag import OntologyDAG
from scicustom.core.ontology.keywords import MAX_KEYWORDS, derive_keywords, exclusive_keywords, usable_keyword
from scicustom.core.units import NON_SCIENTIFIC, UnitCatalog
from scicustom.ports import LabelVectors, OntologyStore

THIN_BELOW = 5


def embedding_candidates(dags: Sequence[OntologyDAG], vectors: LabelVectors) -> EmbeddingCandidates:
    """Nodes with at least one descendant (an anchor must yield keywords) and a usable label."""
    refs = [NodeRef(dag.source, nid, node.label, dag.stat(nid).n_descendants)
            for dag in dags for nid, node in sorted(dag.nodes.items())
            if dag.stat(nid).n_descendants >= 1 and usable_keyword(node.label)]
    matrix = vectors.vectors([(r.source, r.node_id, r.label) for r in refs])
    return EmbeddingCandidates(refs=refs, vectors=matrix)


def anchor_unit_set(data: Mapping[str, Any], dags: Sequence[OntologyDAG], encoder: TextEncoder | None,
                    vectors: LabelVectors | None) -> list[list[Anchor]]:
    """Anchors per unit of `data["knowledge_units"]`, in order; Non-Scientific gets none."""
    units = data["knowledge_units"]
    index = TermIndex(dags)
    candidates = embedding_candidates(dags, vectors) if vectors is not None else None
    names = [str(u["name"]) for u in units]
    scientific = [i for i, name in enumerate(names) if name != NON_SCIENTIFIC]
    found = anchor_units([names[i] for i in scientific], index, encoder=encoder, candidates=candidates)
    anchors: list[list[Anchor]] = [[] for _ in units]
    for i, unit_anchors in zip(scientific, found, strict=True):
        anchors[i] = unit_anchors
    return anchors


def with_keywords(data: Mapping[str, Any], anchors: Sequence[Sequence[Anchor]],
                  dags: Sequence[OntologyDAG], cap: int = MAX_KEYWORDS) -> dict[str, Any]:
    """The unit set with `keywords` and `anchors` added to every unit; other fields unchanged.
    Every term belongs to one unit's K_v only (`exclusive_keywords`)."""
    by_source = {dag.source: dag for dag in dags}
    names = [str(unit["name"]) for unit in data["knowledge_units"]]
    derived = [derive_keywords(name, unit_anchors, by_source, cap=cap)
               for name, unit_anchors in zip(names, anchors, strict=True)]
    exclusive = exclusive_keywords(names, [d.keywords for d in derived])
    units = []
    for unit, unit_anchors, found, kept in zip(data["knowledge_units"], anchors, derived, exclusive, strict=True):
        related = set(found.keywords[len(found.keywords) - found.n_related:])
        units.append({**unit, "keywords": kept, "anchors": [a.as_dict() for a in unit_anchors],
                      "keywords_related": sum(term in related for term in kept),
                      "keywords_shared_dropped": len(found.keywords) - len(kept)})
    out = {k: v for k, v in data.items() if k != "knowledge_units"}
    out["keywords_from"] = {"sources": sorted(by_source), "max_keywords": cap,
                            "method": "anchor synonyms, then descendants nearest first, then related terms; "
                                      "a term in several K_v kept only by its nearest unit; "
                                      "keywords_related counts the related-term tail"}
    out["knowledge_units"] = units
    return out


def coverage(data_with_keywords: Mapping[str, Any]) -> dict[str, Any]:
    units = [u for u in data_with_keywords["knowledge_units"] if u["name"] != NON_SCIENTIFIC]
    counts = np.array([len(u["keywords"]) for u in units], dtype=float)
    methods: Counter[str] = Counter(u["anchors"][0]["method"] if u["anchors"] else "none" for u in units)
    sources: Counter[str] = Counter(a["source"] for u in units for a in u["anchors"])
    without_related = np.array([len(u["keywords"]) - u["keywords_related"] for u in units], dtype=float)
    thin = [{"id": u["id"], "name": u["name"], "keywords": len(u["keywords"]),
             "anchors": [f"{a['source']}:{a['label']} ({a['method']} {a['score']})" for a in u["anchors"]]}
            for u in units if len(u["keywords"]) < THIN_BELOW]
    return {
        "units": len(units),
        "anchored": int(sum(1 for u in units if u["anchors"])),
        "best_anchor_method": dict(sorted(methods.items())),
        "anchors_per_source": dict(sorted(sources.items())),
        "keywords_per_unit": {
            "mean": round(float(counts.mean()), 1) if counts.size else 0.0,
            "min": int(counts.min()) if counts.size else 0,
            "p25": float(np.percentile(counts, 25)) if counts.size else 0.0,
            "median": float(np.median(counts)) if counts.size else 0.0,
            "p75": float(np.percentile(counts, 75)) if counts.size else 0.0,
            "max": int(counts.max()) if counts.size else 0,
            "at_cap": int((counts >= data_with_keywords["keywords_from"]["max_keywords"]).sum()),
        },
        "shared_terms_dropped": int(sum(u.get("keywords_shared_dropped", 0) for u in units)),
        "units_using_related_terms": int(sum(1 for u in units if u["keywords_related"])),
        "thin_without_related_terms": int((without_related < THIN_BELOW).sum()),
        "thin_below": THIN_BELOW,
        "thin": thin,
    }


def read_unit_set(path: Path) -> dict[str, Any]:
    """A unit set file, its ids and names checked."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput("units", f"cannot read {path}: {exc}") from exc
    UnitCatalog.from_mapping(data)  # validates ids and names
    return dict(data)


def derive_unit_keywords(open_store: Callable[[], OntologyStore], workspace: OntologyWorkspace, *,
                         units: Path | None, default_units: Path, out: Path, max_keywords: int,
                         encoder: TextEncoder | None, label_vectors: Callable[[], LabelVectors]
                         ) -> dict[str, Any]:
    """Anchor `units` (the default unit set when None) and write it with keywords to `out`; the
    default set's copy also goes to the workspace, where the offline judge and the tagger read it.
    `encoder` None skips the embedding stage of anchoring. Returns the coverage report (also written)."""
    if max_keywords < 1:
        raise InvalidInput("max_keywords", "must be at least 1")
    data = read_unit_set(units or default_units)
    with closing(open_store()) as store:
        dags = imported_dags(store)
    vectors = None if encoder is None else label_vectors()
    anchors = anchor_unit_set(data, dags, encoder, vectors)
    result = with_keywords(data, anchors, dags, cap=max_keywords)
    report = coverage(result)
    write_json_atomic(out, result)
    if units is None:
        write_json_atomic(workspace.keywords_file, result)
    write_json_atomic(workspace.keywords_coverage, report)
    return report
