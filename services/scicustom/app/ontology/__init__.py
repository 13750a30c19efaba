"""Ontology use cases: import sources into the ontology store, select knowledge units with
Algorithm 1 (offline or LLM judge), derive each unit's exclusive keyword set K_v, train and measure
the offline judge, and answer unit and keyword look-ups. The CLI (`scicustom ontology`) and
OntologyService call the same functions here.

Files in the ontology workspace (`OntologyWorkspace`; bootstrap puts it at home/ontology):
  ontology.sqlite                    the store of DAGs (see adapters/ontology_store.py for tables)
  import_report.json                 terms, edges, roots, depth, removed cycle edges per source
  label_vectors.npz                  MiniLM vectors of node labels and unit names (a cache)
  knowledge_units_with_keywords.json the default units with `keywords` and `anchors`
  keywords_coverage.json             anchoring coverage, keywords per unit, the thin units
  judge_agreement.json               cross-validated agreement of the offline judge
  uploads/                           ontology files uploaded to OntologyService, content-addressed
Downloaded packages (wheels, the GO .deb and its unpacked tree) live in the package cache that
bootstrap places under the settings' cache directory (cache/ontology).
"""
