"""The ontology service: import sources into the store, select and anchor knowledge units."""
