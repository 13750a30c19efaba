"""OntologyService: the unit set builds use, unit keywords, and `scicustom ontology import` /
`units` (Algorithm 1) as one call: proto <-> the ontology use cases. The ontology store and its
files are the CLI's (the context's ontology workspace); a selected unit set goes to the object
store, content-addressed."""

from __future__ import annotations

import threading

import grpc

from scicustom.app.ontology.importing import ImportOutcome, SourceRead
from scicustom.app.ontology.ontology_import import OntologyImport, import_ontologies
from scicustom.app.ontology.unit_queries import DerivedKeywords, keywords_of, unit_of, unit_page
from scicustom.app.ontology.unit_selection import JudgeInputs, UnitSelectionRequest
from scicustom.app.ontology.unit_sets import publish_unit_set
from scicustom.artifacts.codec import unit_to_proto
from scicustom.artifacts.v1 import artifacts_pb2
from scicustom.bootstrap import Context
from scicustom.core.ontology.keywords import MAX_KEYWORDS
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.ontology.v1 import ontology_pb2 as pb
from scicustom.ontology.v1 import ontology_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.ontology.v1.OntologyService"
_FORMATS = {pb.ONTOLOGY_FILE_FORMAT_OBO: "obo", pb.ONTOLOGY_FILE_FORMAT_OWL: "owl"}


class OntologyServicer(pb_grpc.OntologyServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._import_lock = threading.Lock()
        self._derived = DerivedKeywords(ctx.ontology_workspace.keywords_file)

    # -- units and keywords ------------------------------------------------------------------------
    def ListUnits(self, request: pb.ListUnitsRequest, context: grpc.ServicerContext) -> pb.ListUnitsResponse:
        page = unit_page(self.ctx.catalog, request.page_size, request.page_token)
        return pb.ListUnitsResponse(units=[unit_to_proto(u) for u in page.units],
                                    next_page_token=page.next_page_token, total_size=page.total_size,
                                    units_version=page.units_version)

    def GetUnit(self, request: pb.GetUnitRequest, context: grpc.ServicerContext) -> artifacts_pb2.KnowledgeUnit:
        return unit_to_proto(unit_of(self.ctx.catalog, request.unit_id))

    def GetKeywords(self, request: pb.GetKeywordsRequest, context: grpc.ServicerContext) -> pb.GetKeywordsResponse:
        found = keywords_of(self.ctx.catalog, request.unit_id, self._derived)
        if not found.derived:
            return pb.GetKeywordsResponse(unit_id=found.unit.id, unit_name=found.unit.name, keywords=found.keywords,
                                          origin=pb.KEYWORD_ORIGIN_UNIT_SET)
        anchors = [pb.Anchor(source=a["source"], node_id=a["node_id"], label=a["label"], method=a["method"],
                             score=a["score"]) for a in found.anchors]
        return pb.GetKeywordsResponse(unit_id=found.unit.id, unit_name=found.unit.name, keywords=found.keywords,
                                      origin=pb.KEYWORD_ORIGIN_DERIVED, anchors=anchors)

    # -- import and unit selection -----------------------------------------------------------------
    def ImportOntology(self, request: pb.ImportOntologyRequest,
                       context: grpc.ServicerContext) -> pb.ImportOntologyResponse:
        selection = _selection(request.select_units) if request.HasField("select_units") else None
        reads = self._source_reads(request)
        imported: set[str] = set()

        def note(outcome: ImportOutcome) -> None:
            if outcome.status == "imported":
                imported.add(outcome.source)

        try:
            if not self._import_lock.acquire(blocking=False):
                context.abort(grpc.StatusCode.ABORTED, "another ontology import is running in this server; retry later")
            try:
                judges = JudgeInputs(llm=lambda: self.ctx.llm, keywords_file=self.ctx.ontology_workspace.keywords_file,
                                     label_vectors=self.ctx.label_vectors)
                done = import_ontologies(self.ctx.ontology_store, self.ctx.ontology_workspace, reads,
                                         force=request.force,
                                         selection=None if selection is None else (selection, judges),
                                         checkpoint=lambda: check_deadline(context),
                                         on_outcome=note)
            finally:
                self._import_lock.release()
        finally:  # keep an upload this request stored only when its source was imported from it
            for read in reads:
                if read.discard is not None and read.name not in imported:
                    read.discard()
        return self._response(done)

    def _source_reads(self, request: pb.ImportOntologyRequest) -> list[SourceRead]:
        sources = self.ctx.ontology_sources
        if request.HasField("file"):
            upload = request.file
            return [sources.upload_read(upload.name, _FORMATS.get(upload.format, ""), upload.content,
                                        self.ctx.ontology_workspace.uploads, packaged_too=request.sources)]
        return sources.packaged_reads(request.sources)

    def _response(self, done: OntologyImport) -> pb.ImportOntologyResponse:
        response = pb.ImportOntologyResponse(
            outcomes=[pb.SourceOutcome(source=o.source, status=o.status) for o in done.outcomes],
            sources=[pb.SourceReport(source=r.name, version=r.version, origin=r.origin, terms=r.terms, edges=r.edges,
                                     roots=r.roots, max_depth=r.max_depth, dropped_edges=r.dropped_edges,
                                     cycle_edges_removed=len(r.cycle_edges)) for r in done.reports])
        if done.selection is not None:
            chosen = done.selection
            published = publish_unit_set(self.ctx.unit_set_blobs, chosen.unit_set)
            response.selection.CopyFrom(pb.UnitSelectionSummary(
                judge=chosen.judge, visited=chosen.result.visited, judged=dict(chosen.result.labels),
                backtracked_small=chosen.result.backtracked_small, n_units=chosen.unit_set["n_units"],
                unit_set_key=published.key, unit_set_sha256=published.sha256,
                unparsed_answers=len(chosen.unparsed)))
        return response


def _selection(selection: pb.UnitSelection) -> UnitSelectionRequest:
    # 0 means the default, as the proto says.
    return UnitSelectionRequest(judge=selection.judge, model=selection.model, sources=tuple(selection.sources),
                                min_descendants=selection.min_descendants or MIN_DESCENDANTS,
                                max_keywords=selection.max_keywords or MAX_KEYWORDS)


def binding(ctx: Context) -> ServiceBinding:
    servicer = OntologyServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_OntologyServiceServicer_to_server(servicer, server))
