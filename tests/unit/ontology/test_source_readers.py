from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest
import zstandard

from scicustom.adapters.ontology_arxiv import read_arxiv_taxonomy
from scicustom.adapters.ontology_cellxgene import read_cellxgene
from scicustom.adapters.ontology_edam import read_edam
from scicustom.adapters.ontology_go_db import read_go_sqlite
from scicustom.adapters.ontology_nasa_thesaurus import read_nasa_thesaurus
from scicustom.adapters.ontology_obo_file import read_ontology_file
from scicustom.adapters.ontology_package_cache import PackageCache
from scicustom.core.errors import InvalidInput


def _wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def test_cellxgene_reads_the_latest_version_and_parents_at_distance_one(tmp_path):
    terms = {
        "PATO:1": {"ancestors": {}, "label": "quality", "deprecated": False},
        "PATO:2": {"ancestors": {"PATO:1": 1}, "label": "shape", "synonyms": ["form"],
                   "description": "A morphology.", "deprecated": False},
        "PATO:3": {"ancestors": {"PATO:2": 1, "PATO:1": 2}, "label": "round", "deprecated": False},
        "PATO:4": {"ancestors": {"PATO:1": 1}, "label": "old", "deprecated": True},
    }
    data = "cellxgene_ontology_guide/data/"
    wheel = _wheel(tmp_path / "c.whl", {
        data + "latest_ontology_info.json": json.dumps({"ontologies": {"PATO": {"version": "v2"}}}).encode(),
        data + "PATO-ontology-v2.json.zst": zstandard.ZstdCompressor().compress(json.dumps(terms).encode()),
        data + "PATO-ontology-v1.json.zst": zstandard.ZstdCompressor().compress(b"{}"),
    })
    info, dag = read_cellxgene(wheel, "PATO")
    assert (info.name, info.version) == ("pato", "v2")
    assert sorted(dag.nodes) == ["PATO:1", "PATO:2", "PATO:3"]
    assert list(dag.edges()) == [("PATO:2", "PATO:1"), ("PATO:3", "PATO:2")]
    assert dag.nodes["PATO:2"].synonyms == ("form",) and dag.nodes["PATO:2"].definition == "A morphology."
    with pytest.raises(InvalidInput, match="CHEBI"):
        read_cellxgene(wheel, "CHEBI")


def test_nasa_thesaurus_double_quoted_csv(tmp_path):
    rows = [
        '"Key UID,""Key Descriptor"",""Key Object Class"",""Relationship Type"",""Related UID"",'
        '""Related Descriptor"",""Related Object Class"""',
        '"10,""spectroscopy"",""NASA Thesaurus"",""NT"",""11"",""infrared spectroscopy"",""NASA Thesaurus"""',
        '"11,""infrared spectroscopy"",""NASA Thesaurus"",""BT"",""10"",""spectroscopy"",""NASA Thesaurus"""',
        '"11,""infrared spectroscopy"",""NASA Thesaurus"",""UF"",""90"",""IR spectroscopy"",""NASA Thesaurus"""',
        '"11,""infrared spectroscopy"",""NASA Thesaurus"",""RT"",""12"",""~ spectra"",""NASA Thesaurus"""',
        '"12,""~ spectra"",""NASA Thesaurus"",""RT"",""11"",""infrared spectroscopy"",""NASA Thesaurus"""',
        '"90,""IR spectroscopy"",""NASA Thesaurus"",""Use"",""11"",""infrared spectroscopy"",""NASA Thesaurus"""',
    ]
    wheel = _wheel(tmp_path / "n.whl", {
        "invenio_subjects_nasa/downloads/thesaurus-CSV-2025-09-17.csv": "\n".join(rows).encode()})
    info, dag = read_nasa_thesaurus(wheel)
    assert info.version == "2025-09-17"
    assert {n.label for n in dag.nodes.values()} == {"spectroscopy", "infrared spectroscopy"}
    assert dag.nodes["NASA:11"].synonyms == ("IR spectroscopy",)
    assert dag.nodes["NASA:11"].related == ()  # "~ spectra" is a facet marker, not a term
    assert list(dag.edges()) == [("NASA:11", "NASA:10")]


def test_edam_tsv(tmp_path):
    header = "Class ID\tPreferred Label\tSynonyms\tDefinitions\tObsolete\tParents\n"
    body = ("http://edamontology.org/topic_0003\tTopic\t\tA field.\tFALSE\thttp://www.w3.org/2002/07/owl#Thing\n"
            "http://edamontology.org/topic_3314\tChemistry\tChemical science|SO:1\tThe science.\tFALSE\t"
            "http://edamontology.org/topic_0003\n"
            "http://edamontology.org/topic_9999\tGone\t\t\tTRUE\thttp://edamontology.org/topic_0003\n")
    info, dag = read_edam(_wheel(tmp_path / "e.whl", {"edam_ontology/EDAM.tsv": (header + body).encode()}))
    assert sorted(dag.nodes) == ["EDAM:topic_0003", "EDAM:topic_3314"]
    assert dag.nodes["EDAM:topic_3314"].synonyms == ("Chemical science",)
    assert list(dag.edges()) == [("EDAM:topic_3314", "EDAM:topic_0003")]
    assert info.name == "edam"


def test_arxiv_definitions_are_read_without_executing_them(tmp_path):
    source = '''from datetime import date
raise SystemExit("never executed")
GROUPS = {"grp_physics": {"name": "Physics"}, "grp_test": {"name": "Test", "is_test": True}}
ARCHIVES = {"cond-mat": {"name": "Condensed Matter", "in_group": "grp_physics", "start_date": date(1992, 4, 1)},
            "mtrl-th": {"name": "Materials Theory", "in_group": "grp_physics", "end_date": date(1996, 1, 1)},
            "test": {"name": "Test", "in_group": "grp_test"}}
CATEGORIES = {"cond-mat.mtrl-sci": {"name": "Materials Science", "in_archive": "cond-mat", "is_active": True,
                                    "description": "Techniques, synthesis."},
              "cond-mat.old": {"name": "Old", "in_archive": "cond-mat", "is_active": False},
              "test.dis-nn": {"name": "Test cat", "in_archive": "test", "is_active": True}}
'''
    _, dag = read_arxiv_taxonomy(_wheel(tmp_path / "a.whl", {"arxiv/taxonomy/definitions.py": source.encode()}))
    labels = {n.label for n in dag.nodes.values()}
    assert labels == {"arXiv", "Physics", "Condensed Matter", "Materials Science"}
    dag.compute_stats()
    assert dag.roots() == ["arXiv:root"] and dag.stat("arXiv:root").n_descendants == 3
    assert dag.nodes["arXiv:cond-mat.mtrl-sci"].definition == "Techniques, synthesis."


def test_go_sqlite_keeps_is_a_edges_only(tmp_path):
    path = tmp_path / "GO.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
      CREATE TABLE metadata (name TEXT, value TEXT);
      INSERT INTO metadata VALUES ('GOSOURCEDATE', '2022-07-01');
      CREATE TABLE go_term (_id INTEGER, go_id TEXT, term TEXT, ontology TEXT, definition TEXT);
      INSERT INTO go_term VALUES (1, 'GO:0008150', 'biological_process', 'BP', 'A process.'),
        (2, 'GO:0008219', 'cell death', 'BP', NULL), (3, 'GO:0006915', 'apoptotic process', 'BP', 'Death.'),
        (4, 'all', 'all', 'universal', NULL), (5, 'GO:0005575', 'cellular_component', 'CC', NULL);
      CREATE TABLE go_synonym (_id INTEGER, synonym TEXT, secondary TEXT, like_go_id INTEGER);
      INSERT INTO go_synonym VALUES (3, 'apoptosis', NULL, 0), (3, 'GO:0006917', 'GO:0006917', 1);
      CREATE TABLE go_bp_parents (_id INTEGER, _parent_id INTEGER, relationship_type TEXT);
      INSERT INTO go_bp_parents VALUES (2, 1, 'isa'), (3, 2, 'isa'), (3, 1, 'part of');
      CREATE TABLE go_mf_parents (_id INTEGER, _parent_id INTEGER, relationship_type TEXT);
      CREATE TABLE go_cc_parents (_id INTEGER, _parent_id INTEGER, relationship_type TEXT);
    """)
    db.commit()
    db.close()
    info, dag = read_go_sqlite(path, "3.16.0-1")
    assert info.version == "2022-07-01" and "r-bioc-go.db=3.16.0-1" in info.origin
    assert sorted(dag.nodes) == ["GO:0005575", "GO:0006915", "GO:0008150", "GO:0008219"]
    assert list(dag.edges()) == [("GO:0006915", "GO:0008219"), ("GO:0008219", "GO:0008150")]
    assert dag.nodes["GO:0006915"].synonyms == ("apoptosis",)


OWL = """<?xml version="1.0"?>
<rdf:RDF xmlns="http://example.org/t#" xmlns:owl="http://www.w3.org/2002/07/owl#"
     xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
     xmlns:oboInOwl="http://www.geneontology.org/formats/oboInOwl#">
  <owl:Ontology rdf:about="http://purl.obolibrary.org/obo/t.owl"/>
  <owl:Class rdf:about="http://purl.obolibrary.org/obo/T_1"><rdfs:label>material</rdfs:label></owl:Class>
  <owl:Class rdf:about="http://purl.obolibrary.org/obo/T_2">
    <rdfs:label>polymer</rdfs:label>
    <oboInOwl:hasExactSynonym>macromolecule</oboInOwl:hasExactSynonym>
    <rdfs:subClassOf rdf:resource="http://purl.obolibrary.org/obo/T_1"/>
  </owl:Class>
</rdf:RDF>
"""


def test_owl_file_is_read_with_pronto(tmp_path):
    path = tmp_path / "t.owl"
    path.write_text(OWL, encoding="utf-8")
    _, dag = read_ontology_file(path, "t")
    by_label = {n.label: n for n in dag.nodes.values()}
    assert set(by_label) == {"material", "polymer"}
    assert by_label["polymer"].synonyms == ("macromolecule",)
    assert list(dag.edges()) == [(by_label["polymer"].id, by_label["material"].id)]


def test_package_cache_fetches_once(tmp_path):
    commands = []

    def runner(command, cwd):
        commands.append(list(command))
        if command[0] == "apt-get":
            (cwd / "r-bioc-go.db_3.16.0-1_all.deb").write_bytes(b"deb")
        elif command[0] == "dpkg":
            Path(command[3], "usr").mkdir(parents=True)
        else:
            (cwd / "edam_ontology-1.25.3-py3-none-any.whl").write_bytes(b"zip")

    cache = PackageCache(tmp_path, runner)
    first = cache.wheel("edam-ontology", "1.25.3")
    assert first.name == "edam_ontology-1.25.3-py3-none-any.whl" and first.parent == tmp_path / "wheels"
    assert cache.wheel("edam-ontology", "1.25.3") == first
    tree = cache.deb_tree("r-bioc-go.db")
    assert (tree / "usr").is_dir() and cache.deb_tree("r-bioc-go.db") == tree
    assert cache.deb_version("r-bioc-go.db") == "3.16.0-1"
    assert [c[0] for c in commands][-2:] == ["apt-get", "dpkg"] and len(commands) == 3
    assert "--no-deps" in commands[0] and "edam-ontology==1.25.3" in commands[0]
