"""Ontology DAGs, Algorithm 1 (granularity DFS), anchoring and keyword sets of knowledge units."""
