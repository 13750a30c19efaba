"""OntologyService: the unit set builds use, unit keywords, and `scicustom ontology import` /
`units` (Algorithm 1) as one call. The ontology store and its files live under home/ontology, as
for the CLI; a selected unit set goes to the object store, content-addressed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import grpc

from scicustom.adapters.artifact_codec import unit_to_proto
from scicustom.artifacts.v1 import artifacts_pb2
from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.core.ontology.dag import OntologyDAG, SourceInfo
from scicustom.core.units import KnowledgeUnit
from scicustom.grpc_server.field_checks import bounded
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.ontology.v1 import ontology_pb2 as pb
from scicustom.ontology.v1 import ontology_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.ontology.v1.OntologyService"
MAX_PAGE = 1000
DEFAULT_PAGE = 100
UNIT_SETS_PREFIX = "ontology/unit-sets/"
SOURCE_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_SUFFIXES = {pb.ONTOLOGY_FILE_FORMAT_OBO: ".obo", pb.ONTOLOGY_FILE_FORMAT_OWL: ".owl"}
SourceRead = tuple[str, Callable[[], tuple[SourceInfo, OntologyDAG]], bool]  # name, reader, strict


class OntologyServicer(pb_grpc.OntologyServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._import_lock = threading.Lock()
        self._derived: tuple[int, dict[str, Any]] | None = None  # (file mtime_ns, units by id)

    @property
    def ontology_dir(self) -> Path:
        return self.ctx.settings.home / "ontology"

    # -- units and keywords ------------------------------------------------------------------------
    def ListUnits(self, request: pb.ListUnitsRequest, context: grpc.ServicerContext) -> pb.ListUnitsResponse:
        catalog = self.ctx.catalog
        size = bounded(request.page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
        start = 0
        if request.page_token:
            try:
                start = catalog.index_of(request.page_token) + 1
            except KeyError:
                raise InvalidInput("page_token", "is not a token this service returned") from None
        page = catalog.units[start:start + size]
        token = page[-1].id if start + size < len(catalog) else ""
        return pb.ListUnitsResponse(units=[unit_to_proto(u) for u in page], next_page_token=token,
                                    total_size=len(catalog), units_version=catalog.version)

    def GetUnit(self, request: pb.GetUnitRequest, context: grpc.ServicerContext) -> artifacts_pb2.KnowledgeUnit:
        return unit_to_proto(self._unit(request.unit_id))

    def GetKeywords(self, request: pb.GetKeywordsRequest, context: grpc.ServicerContext) -> pb.GetKeywordsResponse:
        unit = self._unit(request.unit_id)
        if any(u.keywords for u in self.ctx.catalog.units):  # the unit set carries keywords: they are the K_v
            return pb.GetKeywordsResponse(unit_id=unit.id, unit_name=unit.name, keywords=list(unit.keywords),
                                          origin=pb.KEYWORD_ORIGIN_UNIT_SET)
        derived = self._derived_units().get(unit.id)
        if derived is None or derived.get("name") != unit.name:
            raise PreconditionFailed(f"the unit set lists no keywords and none are derived for {unit.id}; "
                                     "run `scicustom ontology keywords`")
        anchors = [pb.Anchor(source=a["source"], node_id=a["node_id"], label=a["label"], method=a["method"],
                             score=a["score"]) for a in derived.get("anchors", [])]
        return pb.GetKeywordsResponse(unit_id=unit.id, unit_name=unit.name, keywords=derived.get("keywords", []),
                                      origin=pb.KEYWORD_ORIGIN_DERIVED, anchors=anchors)

    def _unit(self, unit_id: str) -> KnowledgeUnit:
        if not unit_id:
            raise InvalidInput("unit_id", "is empty")
        try:
            return self.ctx.catalog.by_id(unit_id)
        except KeyError:
            raise NotFound("unit_id", f"no unit {unit_id!r} in the unit set") from None

    def _derived_units(self) -> dict[str, Any]:
        """Units of the keywords file `ontology keywords` writes for the default set, re-read when it changes."""
        from scicustom.commands.ontology import KEYWORDS_FILE

        path = self.ontology_dir / KEYWORDS_FILE
        try:
            stamp = path.stat().st_mtime_ns
        except FileNotFoundError:
            return {}
        if self._derived is None or self._derived[0] != stamp:
            units = json.loads(path.read_text(encoding="utf-8"))["knowledge_units"]
            self._derived = (stamp, {str(u["id"]): u for u in units})
        return self._derived[1]

    # -- import and unit selection -----------------------------------------------------------------
    def ImportOntology(self, request: pb.ImportOntologyRequest,
                       context: grpc.ServicerContext) -> pb.ImportOntologyResponse:
        selection = request.select_units if request.HasField("select_units") else None
        if selection is not None:
            _check_selection(selection)
        reads = self._source_reads(request)
        if not self._import_lock.acquire(blocking=False):
            context.abort(grpc.StatusCode.ABORTED, "another ontology import is running in this server; retry later")
        try:
            return self._import(reads, request.force, selection, context)
        finally:
            self._import_lock.release()

    def _source_reads(self, request: pb.ImportOntologyRequest) -> list[SourceRead]:
        from scicustom.ontology.packaged_sources import PACKAGED_SOURCES

        if request.HasField("file"):
            if request.sources:
                raise InvalidInput("sources", "give either packaged sources or one file")
            return [self._uploaded(request.file, set(PACKAGED_SOURCES))]
        unknown = sorted(set(request.sources) - set(PACKAGED_SOURCES))
        if unknown:
            raise InvalidInput("sources", f"unknown {unknown}; choose from {sorted(PACKAGED_SOURCES)}")
        from scicustom.adapters.ontology_package_cache import PackageCache

        cache = PackageCache(self.ctx.settings.cache_dir / "ontology")
        names = list(dict.fromkeys(request.sources)) or list(PACKAGED_SOURCES)
        return [(name, partial(PACKAGED_SOURCES[name], cache), False) for name in names]

    def _uploaded(self, upload: pb.OntologyFile, packaged: set[str]) -> SourceRead:
        from scicustom.adapters.ontology_obo_file import read_ontology_file

        name = upload.name.lower()
        if not SOURCE_NAME.fullmatch(name):
            raise InvalidInput("file.name", f"{upload.name!r} is not a valid source name (a-z, 0-9, _ . -)")
        if name in packaged:
            raise InvalidInput("file.name", f"{name!r} is a packaged source; choose another name")
        suffix = _SUFFIXES.get(upload.format)
        if suffix is None:
            raise InvalidInput("file.format", "give OBO or OWL")
        if not upload.content:
            raise InvalidInput("file.content", "is empty")
        # Kept, not a temp file: the source's recorded origin names this file.
        path = self.ontology_dir / "uploads" / f"{name}-{hashlib.sha256(upload.content).hexdigest()[:16]}{suffix}"
        _write_atomic(path, upload.content)
        return name, partial(read_ontology_file, path, name), True

    def _import(self, reads: list[SourceRead], force: bool, selection: pb.UnitSelection | None,
                context: grpc.ServicerContext) -> pb.ImportOntologyResponse:
        from scicustom.adapters.ontology_store import OntologyStore
        from scicustom.commands.ontology import write_json_atomic
        from scicustom.ontology.importing import import_source

        store = OntologyStore(self.ontology_dir / "ontology.sqlite")
        try:
            outcomes = []
            for name, read, strict in reads:
                check_deadline(context)
                outcome = import_source(store, name, read, force=force, strict=strict)
                outcomes.append(pb.SourceOutcome(source=outcome.source, status=outcome.status))
            reports = store.report()
            write_json_atomic(self.ontology_dir / "import_report.json", {"sources": [r.as_dict() for r in reports]})
            response = pb.ImportOntologyResponse(outcomes=outcomes, sources=[
                pb.SourceReport(source=r.name, version=r.version, origin=r.origin, terms=r.terms, edges=r.edges,
                                roots=r.roots, max_depth=r.max_depth, dropped_edges=r.dropped_edges,
                                cycle_edges_removed=len(r.cycle_edges)) for r in reports])
            if selection is not None:
                check_deadline(context)
                response.selection.CopyFrom(self._select(store, selection, context))
            return response
        finally:
            store.close()

    def _select(self, store: Any, selection: pb.UnitSelection,
                context: grpc.ServicerContext) -> pb.UnitSelectionSummary:
        from scicustom.adapters.content_addressed_store import ContentAddressedStore
        from scicustom.core.ontology.keywords import MAX_KEYWORDS
        from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS, select_units
        from scicustom.ontology.unit_sets import selection_to_unit_set

        unknown = sorted(set(selection.sources) - set(store.source_names()))
        if unknown:
            raise InvalidInput("select_units.sources", f"not imported: {unknown}")
        dags = store.load_dags(list(selection.sources) or None)
        if not dags:
            raise PreconditionFailed("no ontology imported yet")
        min_descendants = selection.min_descendants or MIN_DESCENDANTS
        unparsed = 0
        if selection.judge == "llm":
            from scicustom.core.ontology.llm_judge import LLMGranularityJudge

            judge: Any = LLMGranularityJudge(self.ctx.llm, selection.model)
            # Algorithm 1 asks the LLM once per node: stop between nodes once the caller has given up.
            result = select_units(dags, judge, min_descendants=min_descendants,
                                  progress=lambda _: check_deadline(context))
            unparsed = len(judge.unparsed)
        else:
            # The same offline judge as `scicustom ontology units` (it reads the CLI's files under home).
            from scicustom.commands.ontology import _offline_selection

            judge, result = _offline_selection(dags, min_descendants)
        unit_set = selection_to_unit_set(result, dags, judge_name=judge.name,
                                         max_keywords=selection.max_keywords or MAX_KEYWORDS)
        data = (json.dumps(unit_set, indent=2, ensure_ascii=False) + "\n").encode()
        key = ContentAddressedStore(self.ctx.store, UNIT_SETS_PREFIX).put(data)
        return pb.UnitSelectionSummary(
            judge=judge.name, visited=result.visited, judged=dict(result.labels),
            backtracked_small=result.backtracked_small, n_units=unit_set["n_units"], unit_set_key=key,
            unit_set_sha256=hashlib.sha256(data).hexdigest(), unparsed_answers=unparsed)


def _check_selection(selection: pb.UnitSelection) -> None:
    if selection.judge not in ("offline", "llm"):
        raise InvalidInput("select_units.judge", f"{selection.judge!r} is not 'offline' or 'llm'")
    if selection.judge == "llm" and not selection.model:
        raise InvalidInput("select_units.model", "judge 'llm' needs a litellm model name")


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def binding(ctx: Context) -> ServiceBinding:
    servicer = OntologyServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_OntologyServiceServicer_to_server(servicer, server))
