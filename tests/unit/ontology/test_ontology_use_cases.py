"""The ontology use cases the CLI and OntologyService share: request checks (one set of limits for
both), the import with its report and checkpoints, unit selection, and the unit look-ups."""

from __future__ import annotations

import json

import pytest

from scicustom.adapters.ontology_store import SqliteOntologyStore
from scicustom.app.field_names import fields_renamed
from scicustom.app.ontology.judge_agreement import judge_agreement
from scicustom.app.ontology.ontology_import import import_ontologies
from scicustom.app.ontology.source_requests import OntologySources
from scicustom.app.ontology.unit_keywords import derive_unit_keywords
from scicustom.app.ontology.unit_queries import DerivedKeywords, keywords_of, unit_page
from scicustom.app.ontology.unit_selection import JudgeInputs, UnitSelectionRequest
from scicustom.app.ontology.unit_sets import encode_unit_set, publish_unit_set
from scicustom.app.ontology.workspace import OntologyWorkspace
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.core.ontology.dag import SourceInfo
from scicustom.core.units import KnowledgeUnit, UnitCatalog
from scicustom.ports import Completion
from tests.unit.ontology.dag_builders import fan, make_dag


def _reader(source):
    def read():
        return SourceInfo(source, "v1", f"test:{source}"), make_dag(
            [*fan("chemistry", 10, "reaction "), ("chemistry", "science")], source=source)
    return read


def _sources():
    files = []

    def read_file(path, name):
        files.append((path, name))
        return _reader(name)()

    return OntologySources(packaged={"go": _reader("go"), "edam": _reader("edam")}, read_file=read_file), files


@pytest.mark.parametrize(("fields", "message"), [
    ({"judge": "oracle"}, "select_units.judge: 'oracle' is not 'offline' or 'llm'"),
    ({"judge": "llm"}, "select_units.model: judge 'llm' needs a litellm model name"),
    ({"min_descendants": 0}, "select_units.min_descendants: must be at least 1"),
    ({"max_keywords": 0}, "select_units.max_keywords: must be at least 1"),
])
def test_a_selection_request_is_checked_when_made(fields, message):
    with pytest.raises(InvalidInput) as caught:
        UnitSelectionRequest(**fields)
    assert str(caught.value) == message


def test_packaged_sources_are_checked_deduplicated_and_default_to_all():
    sources, _ = _sources()
    assert [r.name for r in sources.packaged_reads([])] == ["go", "edam"]
    assert [r.name for r in sources.packaged_reads(["edam", "go", "edam"])] == ["edam", "go"]
    assert not any(r.strict for r in sources.packaged_reads([]))
    with pytest.raises(InvalidInput, match=r"^sources: unknown \['zz'\]; choose from \['edam', 'go'\]$"):
        sources.packaged_reads(["go", "zz"])


@pytest.mark.parametrize(("name", "packaged_too", "message"), [
    ("My Terms", (), "file.name: 'My Terms' is not a valid source name (a-z, 0-9, _ . -)"),
    ("GO", (), "file.name: 'go' is a packaged source; choose another name"),
    ("mine", ("go",), "sources: give either packaged sources or one file"),
])
def test_a_user_file_name_is_checked_the_same_for_paths_and_uploads(tmp_path, name, packaged_too, message):
    sources, _ = _sources()
    with pytest.raises(InvalidInput) as from_path:
        sources.file_read(name, tmp_path / "x.obo", packaged_too=packaged_too)
    with pytest.raises(InvalidInput) as from_upload:
        sources.upload_read(name, "obo", b"x", tmp_path, packaged_too=packaged_too)
    assert str(from_path.value) == str(from_upload.value) == message


def test_an_upload_is_kept_by_content_and_read_strictly(tmp_path):
    sources, files = _sources()
    with pytest.raises(InvalidInput, match=r"^file.format: give OBO or OWL$"):
        sources.upload_read("mine", "", b"x", tmp_path)
    with pytest.raises(InvalidInput, match=r"^file.content: is empty$"):
        sources.upload_read("mine", "owl", b"", tmp_path)
    read = sources.upload_read("Mine", "owl", b"<rdf/>", tmp_path)
    (kept,) = tmp_path.iterdir()
    assert kept.name.startswith("mine-") and kept.suffix == ".owl" and kept.read_bytes() == b"<rdf/>"
    assert (read.name, read.strict) == ("mine", True)
    read.read()
    assert files == [(kept, "mine")]


def test_fields_renamed_names_the_callers_field_and_passes_others_through():
    with pytest.raises(InvalidInput, match=r"^--source: unknown$"), fields_renamed({"sources": "--source"}):
        raise InvalidInput("sources", "unknown")
    with pytest.raises(InvalidInput, match=r"^file: bad$"), fields_renamed({"sources": "--source"}):
        raise InvalidInput("file", "bad")


class _ScriptedLLM:
    """Science is too coarse; everything below it is moderate."""

    def __init__(self):
        self.calls = 0

    def complete(self, model, messages, **params):
        self.calls += 1
        coarse = "term: science." in messages[-1]["content"]
        return Completion(text="(too coarse)" if coarse else "(moderate)", model=model)


def _workspace(tmp_path):
    workspace = OntologyWorkspace(tmp_path / "ontology")
    return workspace, lambda: SqliteOntologyStore(workspace.store_path)


def test_import_writes_the_report_and_checkpoints_each_step_then_selects(tmp_path):
    workspace, open_store = _workspace(tmp_path)
    sources, _ = _sources()
    llm = _ScriptedLLM()
    steps, printed = [], []
    request = UnitSelectionRequest(judge="llm", model="m", sources=("go",), max_keywords=2)
    judges = JudgeInputs(llm=lambda: llm, keywords_file=workspace.keywords_file,
                         label_vectors=lambda: pytest.fail("the LLM judge needs no label vectors"))
    done = import_ontologies(open_store, workspace, sources.packaged_reads([]), force=False,
                             selection=(request, judges), checkpoint=lambda: steps.append(1),
                             on_outcome=printed.append)
    assert [(o.source, o.status) for o in done.outcomes] == [("go", "imported"), ("edam", "imported")]
    assert printed == done.outcomes
    assert [r.name for r in done.reports] == ["edam", "go"]
    report = json.loads(workspace.import_report.read_text())
    assert report == {"sources": [r.as_dict() for r in done.reports]}
    assert done.selection is not None and done.selection.judge == "llm:m"
    assert [u["name"] for u in done.selection.unit_set["knowledge_units"]] == ["Chemistry", "Non-Scientific"]
    assert done.selection.unit_set["knowledge_units"][0]["keywords"] == ["reaction 0", "reaction 1"]
    # Before each source, before the selection, after each of the two judgements.
    assert llm.calls == 2 and len(steps) == 2 + 1 + 2
    again = import_ontologies(open_store, workspace, sources.packaged_reads(["go"]), force=False)
    assert [o.status for o in again.outcomes] == ["skipped"] and again.selection is None


def test_selection_names_sources_that_are_not_imported(tmp_path):
    workspace, open_store = _workspace(tmp_path)
    sources, _ = _sources()
    judges = JudgeInputs(llm=_ScriptedLLM, keywords_file=workspace.keywords_file, label_vectors=list)
    with pytest.raises(InvalidInput, match=r"^select_units.sources: not imported: \['edam'\]$"):
        import_ontologies(open_store, workspace, sources.packaged_reads(["go"]), force=False,
                          selection=(UnitSelectionRequest(judge="llm", model="m", sources=("edam",)), judges))


def test_the_offline_judge_needs_the_anchored_default_units(tmp_path):
    workspace, open_store = _workspace(tmp_path)
    sources, _ = _sources()
    judges = JudgeInputs(llm=_ScriptedLLM, keywords_file=workspace.keywords_file, label_vectors=list)
    with pytest.raises(PreconditionFailed, match=r"run `scicustom ontology keywords --out FILE` first"):
        import_ontologies(open_store, workspace, sources.packaged_reads(["go"]), force=False,
                          selection=(UnitSelectionRequest(), judges))


def test_keyword_and_agreement_limits_are_checked_before_any_work(tmp_path):
    workspace, _ = _workspace(tmp_path)

    def no_store():
        raise AssertionError("opened the store")

    with pytest.raises(InvalidInput, match=r"^max_keywords: must be at least 1$"):
        derive_unit_keywords(no_store, workspace, units=None, default_units=tmp_path / "u.json",
                             out=tmp_path / "o.json", max_keywords=0, encoder=None, label_vectors=list)
    with pytest.raises(InvalidInput, match=r"^folds: must be at least 2$"):
        judge_agreement(no_store, workspace, folds=1, default_units=tmp_path / "u.json", label_vectors=list)
    with pytest.raises(InvalidInput, match=r"^units: cannot read"):
        derive_unit_keywords(no_store, workspace, units=None, default_units=tmp_path / "u.json",
                             out=tmp_path / "o.json", max_keywords=5, encoder=None, label_vectors=list)


def test_a_published_unit_set_is_the_file_bytes_under_their_digest():
    stored = {}

    class Blobs:
        def put(self, data):
            stored["k"] = data
            return "k"

    unit_set = {"name": "Ångström", "n_units": 1}
    published = publish_unit_set(Blobs(), unit_set)
    assert stored["k"] == encode_unit_set(unit_set) == (json.dumps(unit_set, indent=2, ensure_ascii=False)
                                                        + "\n").encode()
    assert published.key == "k" and len(published.sha256) == 64


def test_unit_pages_and_keyword_look_ups(tmp_path):
    catalog = UnitCatalog([KnowledgeUnit(f"u{i}", f"Unit {i}", "d") for i in range(5)], version="v")
    first = unit_page(catalog, 2, "")
    assert ([u.id for u in first.units], first.next_page_token, first.total_size) == (["u0", "u1"], "u1", 5)
    assert unit_page(catalog, 0, "u3").units[0].id == "u4"
    with pytest.raises(InvalidInput, match=r"^page_size: 1001 is above the limit 1000$"):
        unit_page(catalog, 1001, "")
    with pytest.raises(InvalidInput, match=r"^page_token: is not a token this service returned$"):
        unit_page(catalog, 1, "nope")
    derived = DerivedKeywords(tmp_path / "kw.json")
    with pytest.raises(NotFound, match=r"^unit_id: no unit 'zz' in the unit set$"):
        keywords_of(catalog, "zz", derived)
    with pytest.raises(PreconditionFailed, match=r"none are derived for u1"):
        keywords_of(catalog, "u1", derived)
    (tmp_path / "kw.json").write_text(json.dumps({"knowledge_units": [
        {"id": "u1", "name": "Unit 1", "keywords": ["a"], "anchors": [{"source": "go"}]}]}))
    found = keywords_of(catalog, "u1", derived)
    assert (found.keywords, found.derived, found.anchors) == (["a"], True, [{"source": "go"}])
