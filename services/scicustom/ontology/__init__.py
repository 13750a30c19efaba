"""The ontology service: import sources into the store, select and anchor knowledge units.

Files under `Settings().home / "ontology"`:
  ontology.sqlite                    the store of DAGs (see adapters/ontology_store.py for tables)
  import_report.json                 terms, edges, roots, depth, removed cycle edges per source
  label_vectors.npz                  MiniLM vectors of node labels and unit names (a cache)
  knowledge_units_with_keywords.json the default units with `keywords` and `anchors`
  keywords_coverage.json             anchoring coverage, keywords per unit, the thin units
  judge_agreement.json               cross-validated agreement of the offline judge
Downloaded packages (wheels, the GO .deb and its unpacked tree) live under
`Settings().cache_dir / "ontology"`.
"""
