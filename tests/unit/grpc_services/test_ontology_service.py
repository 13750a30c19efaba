"""OntologyService over a loopback channel: units, keywords, and import + Algorithm 1 with an LLM judge."""

from __future__ import annotations

import json
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2

from scicustom.adapters.ontology_store import SqliteOntologyStore
from scicustom.app.ontology.unit_sets import UNIT_SETS_PREFIX
from scicustom.core.units import UnitCatalog
from scicustom.grpc_server.server import ServiceBinding
from scicustom.ontology.servicer import SERVICE_NAME, OntologyServicer, binding
from scicustom.ontology.v1 import ontology_pb2 as pb
from scicustom.ontology.v1 import ontology_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import health_status, loopback, reflected_services, rpc_error
from tests.unit.grpc_services.corpus_home import FILLER, empty_home

OBO = pb.ONTOLOGY_FILE_FORMAT_OBO


def _obo(cycle: bool = False) -> bytes:
    terms = ["[Term]\nid: T:0\nname: science topic\n" + ("is_a: T:100\n" if cycle else "")]
    for block, (name, kids) in enumerate([("organic chemistry", "reaction"), ("cell biology", "organelle")], 1):
        terms.append(f"[Term]\nid: T:{block}00\nname: {name}\nsynonym: \"{name} studies\" EXACT []\nis_a: T:0\n")
        for i in range(1, 11):
            terms.append(f"[Term]\nid: T:{block}{i:02d}\nname: {kids} kind {i}\nis_a: T:{block}00\n")
    return ("format-version: 1.2\nontology: t\n\n" + "\n".join(terms)).encode()


def _serve(servicer: OntologyServicer):
    return loopback([ServiceBinding(SERVICE_NAME, lambda s: pb_grpc.add_OntologyServiceServicer_to_server(
        servicer, s))])


@pytest.fixture
def ctx(tmp_path):
    return empty_home(tmp_path)


@pytest.fixture
def stub(ctx):
    with loopback([binding(ctx)]) as channel:
        yield pb_grpc.OntologyServiceStub(channel), channel


def test_health_and_reflection_name_the_service(stub):
    _, channel = stub
    assert health_status(channel, SERVICE_NAME) == health_pb2.HealthCheckResponse.SERVING
    assert SERVICE_NAME in reflected_services(channel)


def test_list_units_pages_through_the_unit_set_in_order(stub):
    ontology, _ = stub
    pages, token = [], ""
    while True:
        page = ontology.ListUnits(pb.ListUnitsRequest(page_size=10, page_token=token), timeout=5)
        pages.append([u.id for u in page.units])
        assert (page.total_size, page.units_version) == (29, "test-1")
        token = page.next_page_token
        if not token:
            break
    assert [len(p) for p in pages] == [10, 10, 9]
    assert [u for p in pages for u in p] == ["u1", "u2", "u3", "u4", *[f"f{i:02d}" for i in range(len(FILLER))],
                                             "ns"]
    everything = ontology.ListUnits(pb.ListUnitsRequest(), timeout=5)  # default page: 100
    assert len(everything.units) == 29 and everything.next_page_token == ""
    exact = ontology.ListUnits(pb.ListUnitsRequest(page_size=29), timeout=5)
    assert exact.next_page_token == ""


@pytest.mark.parametrize(("request_", "details"), [
    (pb.ListUnitsRequest(page_size=1001), "page_size: 1001 is above the limit 1000"),
    (pb.ListUnitsRequest(page_token="nope"), "page_token: is not a token this service returned"),
])
def test_bad_paging_is_invalid_argument(stub, request_, details):
    ontology, _ = stub
    error = rpc_error(lambda: ontology.ListUnits(request_, timeout=5))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, details)


def test_get_unit_and_not_found(stub):
    ontology, _ = stub
    unit = ontology.GetUnit(pb.GetUnitRequest(unit_id="u1"), timeout=5)
    assert (unit.id, unit.name, unit.domain, list(unit.keywords)) == ("u1", "Virology", "d", [])
    error = rpc_error(lambda: ontology.GetUnit(pb.GetUnitRequest(unit_id="ku_999"), timeout=5))
    assert (error.code(), error.details()) == (grpc.StatusCode.NOT_FOUND, "unit_id: no unit 'ku_999' in the unit set")
    error = rpc_error(lambda: ontology.GetUnit(pb.GetUnitRequest(), timeout=5))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "unit_id: is empty")


def test_keywords_come_from_the_derived_file_when_the_unit_set_has_none(stub, ctx):
    ontology, _ = stub
    error = rpc_error(lambda: ontology.GetKeywords(pb.GetKeywordsRequest(unit_id="u1"), timeout=5))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "scicustom ontology keywords" in error.details()
    derived = {"knowledge_units": [
        {"id": "u1", "name": "Virology", "keywords": ["virus", "capsid"],
         "anchors": [{"source": "go", "node_id": "GO:1", "label": "virology", "method": "exact", "score": 1.0}]},
        {"id": "u2", "name": "Some other unit", "keywords": ["x"], "anchors": []}]}
    path = ctx.settings.home / "ontology" / "knowledge_units_with_keywords.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(derived))
    response = ontology.GetKeywords(pb.GetKeywordsRequest(unit_id="u1"), timeout=5)
    assert (list(response.keywords), response.origin, response.unit_name) == (
        ["virus", "capsid"], pb.KEYWORD_ORIGIN_DERIVED, "Virology")
    assert [(a.source, a.node_id, a.method, a.score) for a in response.anchors] == [("go", "GO:1", "exact", 1.0)]
    # Derived for a different unit under the same id: not this unit's keywords.
    error = rpc_error(lambda: ontology.GetKeywords(pb.GetKeywordsRequest(unit_id="u2"), timeout=5))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_keywords_of_a_unit_set_that_carries_them(tmp_path):
    ctx = empty_home(tmp_path)
    units = tmp_path / "with_keywords.json"
    units.write_text(json.dumps({"knowledge_units": [
        {"id": "a", "name": "Optics", "keywords": ["lens", "refraction"]},
        {"id": "b", "name": "Non-Scientific", "keywords": []}]}))
    ctx.settings.units_file = units
    with loopback([binding(ctx)]) as channel:
        ontology = pb_grpc.OntologyServiceStub(channel)
        a = ontology.GetKeywords(pb.GetKeywordsRequest(unit_id="a"), timeout=5)
        b = ontology.GetKeywords(pb.GetKeywordsRequest(unit_id="b"), timeout=5)
    assert (list(a.keywords), a.origin) == (["lens", "refraction"], pb.KEYWORD_ORIGIN_UNIT_SET)
    assert (list(b.keywords), b.origin) == ([], pb.KEYWORD_ORIGIN_UNIT_SET)


def _llm_home(tmp_path, recorded_llm):
    return empty_home(tmp_path, llm_api_base=recorded_llm.api_base, llm_api_key="test")


def test_import_a_file_then_select_units_with_an_llm_judge(tmp_path, recorded_llm):
    recorded_llm.rules += [("term: science topic.", "(too coarse); broad"),
                           ("term: organic chemistry.", "**(moderate)** a textbook chapter"),
                           ("Answer with exactly one of", "still unsure"),
                           ("term: cell biology.", "Hmm.")]
    ctx = _llm_home(tmp_path, recorded_llm)
    request = pb.ImportOntologyRequest(
        file=pb.OntologyFile(name="Topics", format=OBO, content=_obo()),
        select_units=pb.UnitSelection(judge="llm", model="openai/judge-a", max_keywords=3))
    with loopback([binding(ctx)]) as channel:
        ontology = pb_grpc.OntologyServiceStub(channel)
        response = ontology.ImportOntology(request, timeout=60)
        again = ontology.ImportOntology(pb.ImportOntologyRequest(
            file=pb.OntologyFile(name="topics", format=OBO, content=_obo())), timeout=60)
    assert [(o.source, o.status) for o in response.outcomes] == [("topics", "imported")]
    (source,) = response.sources
    assert (source.source, source.terms, source.edges, source.roots, source.max_depth,
            source.cycle_edges_removed) == ("topics", 23, 22, 1, 2, 0)
    assert [(o.source, o.status) for o in again.outcomes] == [("topics", "skipped")]
    summary = response.selection
    assert (summary.judge, summary.visited, dict(summary.judged), summary.n_units, summary.unparsed_answers) == (
        "llm:openai/judge-a", 3, {"coarse": 1, "moderate": 1, "fine": 1}, 2, 1)
    assert summary.unit_set_key.startswith(UNIT_SETS_PREFIX)
    unit_set = json.loads(ctx.store.get_bytes(summary.unit_set_key))
    catalog = UnitCatalog.from_mapping(unit_set)
    assert [u.name for u in catalog] == ["Organic chemistry", "Non-Scientific"]
    assert catalog.by_id("ku_001").keywords == ("organic chemistry studies", "reaction kind 1", "reaction kind 10")
    # The import is the CLI's: the same store and report under home/ontology, the upload kept.
    store = SqliteOntologyStore(ctx.settings.home / "ontology" / "ontology.sqlite")
    assert store.source_names() == ["topics"]
    store.close()
    report = json.loads((ctx.settings.home / "ontology" / "import_report.json").read_text())
    assert [s["source"] for s in report["sources"]] == ["topics"]
    (upload,) = (ctx.settings.home / "ontology" / "uploads").iterdir()
    assert upload.name.startswith("topics-") and upload.suffix == ".obo"


@pytest.mark.parametrize(("request_", "details"), [
    (pb.ImportOntologyRequest(sources=["go"], file=pb.OntologyFile(name="t", format=OBO, content=b"x")),
     "sources: give either packaged sources or one file"),
    (pb.ImportOntologyRequest(sources=["zz"]), "sources: unknown ['zz']"),
    (pb.ImportOntologyRequest(file=pb.OntologyFile(name="a b", format=OBO, content=b"x")),
     "file.name: 'a b' is not a valid source name (a-z, 0-9, _ . -)"),
    (pb.ImportOntologyRequest(file=pb.OntologyFile(name="go", format=OBO, content=b"x")),
     "file.name: 'go' is a packaged source; choose another name"),
    (pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", content=b"x")), "file.format: give OBO or OWL"),
    (pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", format=OBO)), "file.content: is empty"),
    (pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", format=OBO, content=_obo(cycle=True))),
     "file: is-a cycle in t: "),
    (pb.ImportOntologyRequest(sources=["go"], select_units=pb.UnitSelection(judge="oracle")),
     "select_units.judge: 'oracle' is not 'offline' or 'llm'"),
    (pb.ImportOntologyRequest(sources=["go"], select_units=pb.UnitSelection(judge="llm")),
     "select_units.model: judge 'llm' needs a litellm model name"),
    (pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", format=OBO, content=_obo()),
                              select_units=pb.UnitSelection(judge="llm", model="m", sources=["go"])),
     "select_units.sources: not imported: ['go']"),
])
def test_bad_import_requests_are_invalid_argument_naming_the_field(stub, request_, details):
    ontology, _ = stub
    error = rpc_error(lambda: ontology.ImportOntology(request_, timeout=30))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith(details)


def test_a_second_import_while_one_runs_is_aborted(ctx):
    servicer = OntologyServicer(ctx)
    with _serve(servicer) as channel:
        ontology = pb_grpc.OntologyServiceStub(channel)
        with servicer._import_lock:  # an import in progress
            error = rpc_error(lambda: ontology.ImportOntology(pb.ImportOntologyRequest(
                file=pb.OntologyFile(name="t", format=OBO, content=_obo())), timeout=30))
        assert error.code() == grpc.StatusCode.ABORTED
        done = ontology.ImportOntology(pb.ImportOntologyRequest(
            file=pb.OntologyFile(name="t", format=OBO, content=_obo())), timeout=30)
    assert [o.status for o in done.outcomes] == ["imported"]


def test_unit_selection_stops_between_judgements_once_the_deadline_has_passed(tmp_path, recorded_llm):
    def slow_coarse(messages):
        time.sleep(1.5)
        return "(too coarse)"

    recorded_llm.rules.append(("term:", slow_coarse))
    ctx = _llm_home(tmp_path, recorded_llm)
    servicer = OntologyServicer(ctx)
    request = pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", format=OBO, content=_obo()),
                                       select_units=pb.UnitSelection(judge="llm", model="openai/judge-a"))
    with _serve(servicer) as channel:
        error = rpc_error(lambda: pb_grpc.OntologyServiceStub(channel).ImportOntology(request, timeout=1.0))
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert servicer._import_lock.acquire(timeout=30)  # the handler has given up and let go
    servicer._import_lock.release()
    assert len(recorded_llm.calls) == 1  # the root only: the DFS stopped before its children
    assert ctx.store.list_keys(UNIT_SETS_PREFIX) == []


def test_a_refused_upload_leaves_no_file_and_no_store_and_a_kept_one_is_not_rewritten(stub, ctx):
    """The 10,000-case fuzz run found a refused ImportOntology rewriting the upload it had stored, and
    a first refused one creating an empty ontology store."""
    ontology, _ = stub
    folder = ctx.settings.home / "ontology"

    def refused(content: bytes) -> None:
        error = rpc_error(lambda: ontology.ImportOntology(pb.ImportOntologyRequest(
            file=pb.OntologyFile(name="t", format=OBO, content=content)), timeout=30))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert not (folder / "uploads").exists() or not any((folder / "uploads").iterdir())

    refused(b"\0")  # does not parse: nothing at all is left
    assert not (folder / "ontology.sqlite").exists()
    refused(_obo(cycle=True))  # parses, but the user's file has a cycle: no upload is kept
    ontology.ImportOntology(pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", format=OBO, content=_obo())),
                            timeout=30)
    (upload,) = (folder / "uploads").iterdir()
    stamp = upload.stat().st_mtime_ns
    again = ontology.ImportOntology(pb.ImportOntologyRequest(file=pb.OntologyFile(name="t", format=OBO,
                                                                                  content=_obo())), timeout=30)
    assert [o.status for o in again.outcomes] == ["skipped"]
    assert [p.name for p in (folder / "uploads").iterdir()] == [upload.name] and upload.stat().st_mtime_ns == stamp


def test_an_upload_imported_before_a_refused_selection_is_kept(stub, ctx):
    ontology, _ = stub
    error = rpc_error(lambda: ontology.ImportOntology(pb.ImportOntologyRequest(
        file=pb.OntologyFile(name="t", format=OBO, content=_obo()),
        select_units=pb.UnitSelection(judge="llm", model="m", sources=["go"])), timeout=30))
    assert error.details().startswith("select_units.sources: not imported")
    (upload,) = (ctx.settings.home / "ontology" / "uploads").iterdir()  # source t names it as its origin
    assert upload.read_bytes() == _obo()
