"""The ontology service edge: OntologyService (servicer.py) over the ontology use cases in
`scicustom.app.ontology`, whose docstring lists the files of the ontology workspace."""
