from __future__ import annotations

import json

import pytest

from scicustom.adapters.ontology_obo_file import read_ontology_file
from scicustom.adapters.ontology_store import SqliteOntologyStore
from scicustom.app.ontology.importing import import_source
from scicustom.cli import main
from scicustom.core.errors import InvalidInput

OBO = """format-version: 1.2
data-version: test/2024-01-01
ontology: tiny

[Term]
id: TO:0000001
name: chemistry topic

[Term]
id: TO:0000002
name: organic chemistry
synonym: "organic chem" EXACT []
def: "Chemistry of carbon compounds." []
is_a: TO:0000001 ! chemistry topic

[Term]
id: TO:0000003
name: reaction mechanism
is_a: TO:0000002 ! organic chemistry

[Term]
id: TO:0000004
name: pericyclic reaction
is_a: TO:0000003
is_a: TO:0000002

[Term]
id: TO:0000005
name: retired term
is_obsolete: true
"""


def _write(tmp_path, text, name="tiny.obo"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_terms_synonyms_definitions_and_is_a(tmp_path):
    info, dag = read_ontology_file(_write(tmp_path, OBO), "tiny")
    assert info.name == "tiny" and info.version == "test/2024-01-01"
    assert sorted(dag.nodes) == ["TO:0000001", "TO:0000002", "TO:0000003", "TO:0000004"]
    organic = dag.nodes["TO:0000002"]
    assert organic.label == "organic chemistry" and organic.synonyms == ("organic chem",)
    assert organic.definition == "Chemistry of carbon compounds."
    assert dag.parents_of("TO:0000004") == ("TO:0000002", "TO:0000003")
    assert dag.roots() == ["TO:0000001"]
    dag.compute_stats()
    assert dag.stat("TO:0000001").n_descendants == 3 and dag.stat("TO:0000004").depth == 2


def test_import_is_incremental_and_force_replaces(tmp_path):
    path = _write(tmp_path, OBO)
    store = SqliteOntologyStore(tmp_path / "store.sqlite")
    reads = []

    def read():
        reads.append(1)
        return read_ontology_file(path, "tiny")

    assert import_source(store, "tiny", read, force=False, strict=True).status == "imported"
    assert import_source(store, "tiny", read, force=False, strict=True).status == "skipped"
    assert len(reads) == 1
    assert import_source(store, "tiny", read, force=True, strict=True).status == "imported"
    (row,) = store.report()
    assert (row.name, row.terms, row.edges, row.roots, row.max_depth) == ("tiny", 4, 4, 1, 2)
    loaded = store.load_dag("tiny")
    assert loaded.stat("TO:0000002").n_descendants == 2
    assert loaded.nodes["TO:0000002"].synonyms == ("organic chem",)


def test_user_file_with_a_cycle_is_rejected_naming_it(tmp_path):
    cyclic = OBO + "\n[Term]\nid: TO:0000006\nname: loop a\nis_a: TO:0000007\n\n" \
                   "[Term]\nid: TO:0000007\nname: loop b\nis_a: TO:0000006\n"
    path = _write(tmp_path, cyclic)
    store = SqliteOntologyStore(tmp_path / "store.sqlite")
    with pytest.raises(InvalidInput, match=r"cycle in tiny: TO:000000[67] -> TO:000000[67] -> TO:000000[67]"):
        import_source(store, "tiny", lambda: read_ontology_file(path, "tiny"), force=False, strict=True)
    assert store.source_names() == []


def test_cli_imports_one_obo_file_in_one_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "home"))
    path = _write(tmp_path, OBO, "My-Terms.obo")
    assert main(["ontology", "import", "--obo", str(path)]) == 0
    out = capsys.readouterr().out
    assert "my-terms" in out and "total" in out
    report = json.loads((tmp_path / "home" / "ontology" / "import_report.json").read_text())
    assert report["sources"][0]["source"] == "my-terms" and report["sources"][0]["terms"] == 4


@pytest.mark.parametrize(("argv", "message"), [
    (["--obo", "missing.obo"], "does not exist"),
    (["--obo", "BAD", "--name", "Bad Name!"], "not a valid source name"),
    (["--obo", "BAD", "--name", "chebi"], "packaged source"),
    (["--source", "nope"], "unknown"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "home"))
    bad = _write(tmp_path, "this is not an ontology", "bad.obo")
    argv = [str(bad) if a == "BAD" else str(tmp_path / a) if a.endswith(".obo") else a for a in argv]
    assert main(["ontology", "import", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_unparsable_file_is_bad_input(tmp_path):
    with pytest.raises(InvalidInput, match=r"not a readable OBO/OWL file|defines no terms"):
        read_ontology_file(_write(tmp_path, "[Term]\nid: broken\nis_a: \x00\x00\n"), "x")


@pytest.mark.parametrize("target", ["http://127.0.0.1:{port}/evil.obo", "{local}"])
def test_imports_are_never_followed_and_the_document_is_refused(tmp_path, target):
    """An OBO naming a loopback URL made the importer connect to it (SSRF); local paths were read too."""
    import http.server
    import threading

    hits = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        local = _write(tmp_path, OBO, "other.obo")
        clause = target.format(port=server.server_address[1], local=local)
        text = OBO.replace("ontology: tiny\n", f"ontology: tiny\nimport: {clause}\n")
        with pytest.raises(InvalidInput, match="imports are never fetched"):
            read_ontology_file(_write(tmp_path, text, "importing.obo"), "x")
    finally:
        server.shutdown()
    assert hits == []
