from __future__ import annotations

import numpy as np
import pytest

from scicustom.core.ontology.anchoring import (
    EmbeddingCandidates,
    NodeRef,
    TermIndex,
    anchor_units,
    normalise_term,
    plausible_fuzzy_pair,
)
from tests.unit.ontology.dag_builders import fan, make_dag


class TableEncoder:
    """Deterministic 'embeddings': one axis per concept, texts mapped by hand."""

    def __init__(self, table):
        self.table = table
        self.calls = []

    def encode(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self.table[text]
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.mark.parametrize(("raw", "norm"), [
    ("Acid-base chemistry", "acid base chemistry"),
    ("Ketones", "ketone"),
    ("Amino acids", "amino acid"),
    ("Properties", "property"),
    ("Processes", "process"),
    ("Mass", "mass"), ("Virus", "virus"), ("Analysis", "analysis"),
    ("  Schrödinger  equation ", "schrodinger equation"),
])
def test_normalise_term(raw, norm):
    assert normalise_term(raw) == norm


@pytest.mark.parametrize(("a", "b", "ok"), [
    ("cellular differentiation", "cell differentiation", True),
    ("unsaturated hydrocarbon", "saturated hydrocarbon", False),
    ("ubiquitination", "deubiquitination", False),
    ("neurodegeneration", "neural tissue regeneration", False),
    ("d amino acid metabolism", "amino acid metabolism", True),
])
def test_fuzzy_guard(a, b, ok):
    assert plausible_fuzzy_pair(a, b) is ok


@pytest.fixture
def tiny():
    chem = make_dag([("ketone", "carbonyl compound"), ("aldehyde", "carbonyl compound"),
                     *fan("ketone", 6, "k"), ("carbonyl compound", "chemical entity"),
                     ("alkane", "chemical entity"), *fan("alkane", 3, "a")],
                    source="chem", synonyms={"alkane": ["saturated hydrocarbon", "paraffin"]})
    bio = make_dag([("apoptotic process", "cell death"), *fan("apoptotic process", 8, "p"),
                    ("cell differentiation", "cell process"), *fan("cell differentiation", 7, "d")],
                   source="bio", synonyms={"apoptotic process": ["apoptosis"]})
    other = make_dag([("Ketones", "things")], source="other")
    return [chem, bio, other]


def test_exact_and_synonym_matches_across_sources(tiny):
    index = TermIndex(tiny)
    ketone, apoptosis, paraffin = anchor_units(["Ketone", "Apoptosis", "Paraffins"], index)
    # Exact in two sources: the node with more descendants first.
    assert [(a.source, a.node_id, a.method, a.score) for a in ketone] == [
        ("chem", "ketone", "exact", 1.0), ("other", "Ketones", "exact", 1.0)]
    assert [(a.node_id, a.method) for a in apoptosis] == [("apoptotic process", "synonym")]
    assert [(a.node_id, a.method) for a in paraffin] == [("alkane", "synonym")]


def test_fuzzy_match_records_its_ratio_and_refuses_opposites(tiny):
    index = TermIndex(tiny)
    differentiation, unsaturated = anchor_units(["Cellular differentiation", "Unsaturated hydrocarbon"], index)
    assert [(a.node_id, a.method) for a in differentiation] == [("cell differentiation", "fuzzy")]
    assert differentiation[0].score == pytest.approx(0.9091, abs=1e-3)
    assert unsaturated == []  # "saturated hydrocarbon" is 95% similar but the opposite


def test_embedding_stage_only_for_units_still_short_of_keywords(tiny):
    index = TermIndex(tiny)
    refs = [NodeRef("chem", "carbonyl compound", "carbonyl compound", 9),
            NodeRef("bio", "cell death", "cell death", 9)]
    vectors = np.eye(4, dtype=np.float32)[[0, 1]]
    encoder = TableEncoder({"Carbonyl chemistry": [1, 0.2, 0, 0], "Necrosis biology": [0.5, 0.5, 1, 0]})
    found = anchor_units(["Carbonyl chemistry", "Necrosis biology", "Ketone"], index, encoder=encoder,
                         candidates=EmbeddingCandidates(refs, vectors))
    carbonyl, necrosis, ketone = found
    assert [(a.node_id, a.method) for a in carbonyl] == [("carbonyl compound", "embedding")]
    assert carbonyl[0].score == pytest.approx(1 / np.sqrt(1.04), abs=1e-4)
    assert necrosis == []  # nearest cosine 0.41 is under the cutoff
    assert ketone[0].method == "exact"
    assert encoder.calls == [["Carbonyl chemistry", "Necrosis biology"]]  # Ketone was never embedded


def test_leaf_exact_match_is_topped_up_by_embedding(tiny):
    index = TermIndex(tiny)
    refs = [NodeRef("chem", "carbonyl compound", "carbonyl compound", 9)]
    encoder = TableEncoder({"Aldehyde": [1, 0.1, 0, 0]})
    (aldehyde,) = anchor_units(["Aldehyde"], index, encoder=encoder,
                               candidates=EmbeddingCandidates(refs, np.eye(4, dtype=np.float32)[[0]]))
    assert [(a.node_id, a.method) for a in aldehyde] == [("aldehyde", "exact"), ("carbonyl compound", "embedding")]
