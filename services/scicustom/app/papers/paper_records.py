"""A paper's records in the object store, and its state read from them.

Layout (keys), one folder per paper; the paper id is the first 32 hex digits of the SHA-256 of its
bytes, so the same bytes are one paper (content-hash de-duplication):
  papers/<id>/paper.json                 what was submitted: file name, size, sha256, submitted order
  papers/<id>/source                     the bytes as uploaded
  papers/<id>/parsed.json                the parsed document (core/papers/document.py), the parse artifact
  papers/<id>/extract-<extractor>.json   one extractor's report: status, counts, rejections, batch id
  papers/<id>/instances-<extractor>.jsonl  its instances with their provenance
  papers/<id>/rejected-<extractor>.jsonl   the candidates its grounding checks rejected (audit)
  papers/<id>/failed.json                a stage gave the paper up: stage, reason (FAILED)
  papers/<id>/superseded.json            a changed version of the same paper (DOI/PMID) replaced it
  papers/<id>/withdrawn.json             its instances were then taken out of the corpus and the index
  papers/<id>/supersedes.json            the earlier version this paper replaced
  papers/identities/<digest>.json        DOI or PMID -> the paper id that holds it now
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from scicustom.app.ingest.item_batches import batch_state
from scicustom.app.stored_json import read_json, write_json
from scicustom.core.errors import InvalidInput, NotFound
from scicustom.ports import ObjectStore

PAPERS_PREFIX = "papers/"
IDENTITIES_PREFIX = "papers/identities/"
EXTRACTORS = ("qa", "recipes", "hypotheses")
_PAPER_ID = re.compile(r"[0-9a-f]{32}")
NEEDS_LLM = "needs an LLM"


def paper_id_of(digest: str) -> str:
    return digest[:32]


def check_paper_id(paper_id: str, field_name: str = "paper_id") -> str:
    if not _PAPER_ID.fullmatch(paper_id):
        raise InvalidInput(field_name, f"{paper_id!r} is not 32 lowercase hex digits")
    return paper_id


@dataclass(frozen=True)
class PaperKeys:
    paper_id: str

    def _key(self, name: str) -> str:
        return f"{PAPERS_PREFIX}{self.paper_id}/{name}"

    @property
    def meta(self) -> str:
        return self._key("paper.json")

    @property
    def source(self) -> str:
        return self._key("source")

    @property
    def parsed(self) -> str:
        return self._key("parsed.json")

    @property
    def failed(self) -> str:
        return self._key("failed.json")

    @property
    def superseded(self) -> str:
        return self._key("superseded.json")

    @property
    def supersedes(self) -> str:
        return self._key("supersedes.json")

    @property
    def withdrawn(self) -> str:
        return self._key("withdrawn.json")

    def report(self, extractor: str) -> str:
        return self._key(f"extract-{extractor}.json")

    def instances(self, extractor: str) -> str:
        return self._key(f"instances-{extractor}.jsonl")

    def rejected(self, extractor: str) -> str:
        return self._key(f"rejected-{extractor}.jsonl")


def identity_key(identity: str) -> str:
    return f"{IDENTITIES_PREFIX}{hashlib.sha256(identity.encode()).hexdigest()[:32]}.json"


def stage_succeeded(store: ObjectStore, paper_id: str, stage: str) -> bool:
    """Whether `stage` ("parse", "extract-<extractor>") already wrote its result for the paper."""
    keys = PaperKeys(paper_id)
    if stage == "parse":
        return store.exists(keys.parsed)
    return stage.startswith("extract-") and store.exists(keys.report(stage.removeprefix("extract-")))


def record_failure(store: ObjectStore, paper_id: str, stage: str, reason: str, file_name: str = "") -> None:
    """FAILED with the reason (the dead-letter path of every paper stage writes it). A stage that
    already succeeded keeps its result: a damaged or forged copy of its event fails nothing."""
    if stage_succeeded(store, paper_id, stage):
        return
    record = {"stage": stage, "reason": reason, **({"file_name": file_name} if file_name else {})}
    write_json(store, PaperKeys(paper_id).failed, record)


@dataclass
class PaperStatus:
    paper_id: str
    file_name: str
    state: str  # submitted, parsed, extracted, indexed, failed, superseded
    reason: str = ""
    failed_stage: str = ""
    title: str = ""
    doi: str = ""
    pmid: str = ""
    format: str = ""
    size_bytes: int = 0
    sha256: str = ""
    superseded_by: str = ""
    duplicate: bool = False  # this submission's bytes were already here
    instances: dict[str, int] = field(default_factory=dict)   # per kind: qa, recipe, hypothesis
    rejected: dict[str, int] = field(default_factory=dict)    # per extractor: grounding/ambiguity rejections
    extractors: dict[str, str] = field(default_factory=dict)  # per extractor: its status
    batch_ids: list[str] = field(default_factory=list)

    @property
    def terminal(self) -> bool:
        """Nothing more will happen to it without a new submission (every stage through the index)."""
        if self.state in ("failed", "superseded", "indexed"):
            return True
        return self.extracted and not self.batch_ids

    @property
    def extracted(self) -> bool:
        """Every extractor has reported (the embedded profile stops here: its items go to the corpus)."""
        return self.state in ("failed", "superseded", "indexed") or (
            self.state == "extracted" and all(e in self.extractors for e in EXTRACTORS))

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.paper_id, "file": self.file_name, "state": self.state.upper(),
                                  "instances": dict(self.instances)}
        if self.reason:
            record["reason"] = self.reason
        for name in ("title", "doi", "pmid", "format", "superseded_by", "failed_stage"):
            if getattr(self, name):
                record[name] = getattr(self, name)
        record.update(duplicate=self.duplicate, rejected=dict(self.rejected), extractors=dict(self.extractors))
        return record


_KIND = {"qa": "qa", "recipes": "recipe", "hypotheses": "hypothesis"}


def paper_status(store: ObjectStore, paper_id: str) -> PaperStatus:
    """The paper's state from its records; NotFound for an unknown id."""
    check_paper_id(paper_id)
    keys = PaperKeys(paper_id)
    meta = read_json(store, keys.meta)
    failed = read_json(store, keys.failed)
    if meta is None and failed is None:
        raise NotFound("paper_id", f"no paper {paper_id}")
    meta = meta or {"file_name": (failed or {}).get("file_name", "")}
    status = PaperStatus(paper_id, str(meta.get("file_name", "")), "submitted",
                         size_bytes=int(meta.get("size_bytes", 0)), sha256=str(meta.get("sha256", "")))
    parsed = read_json(store, keys.parsed)
    if parsed is not None:
        status.state = "parsed"
        status.title, status.doi, status.pmid = str(parsed["title"]), str(parsed["doi"]), str(parsed["pmid"])
        status.format = str(parsed["format"])
    indexed = True
    for extractor in EXTRACTORS:
        report = read_json(store, keys.report(extractor))
        if report is None:
            continue
        status.extractors[extractor] = str(report["status"])
        status.instances[_KIND[extractor]] = int(report.get("instances", 0))
        status.rejected[extractor] = int(report.get("rejected", 0))
        batch_id = str(report.get("batch_id", ""))
        if batch_id:
            status.batch_ids.append(batch_id)
            state = batch_state(store, batch_id)
            indexed = indexed and state is not None and state.state == "indexed"
            if state is not None and state.failure is not None and failed is None:
                failed = {"stage": str(state.failure["stage"]), "reason": str(state.failure["error"])}
    if status.extractors:
        status.state = "extracted"
        if status.batch_ids and indexed and all(e in status.extractors for e in EXTRACTORS):
            status.state = "indexed"
    superseded = read_json(store, keys.superseded)
    if superseded is not None:
        status.state, status.superseded_by = "superseded", str(superseded["by"])
    if failed is not None:
        status.state, status.reason, status.failed_stage = "failed", str(failed["reason"]), str(failed["stage"])
    return status


def list_papers(store: ObjectStore, state: str = "", limit: int = 1000,
                only: Collection[str] | None = None) -> list[PaperStatus]:
    """Papers in id order, optionally only those in `state` and among `only` (a tenant's,
    tenant_papers.py); at most `limit`."""
    if limit < 1:
        raise InvalidInput("limit", "must be >= 1")
    ids = sorted({k[len(PAPERS_PREFIX):].split("/", 1)[0] for k in store.list_keys(PAPERS_PREFIX)
                  if k.endswith(("/paper.json", "/failed.json"))})
    if only is not None:
        ids = [paper_id for paper_id in ids if paper_id in only]
    out = []
    for paper_id in ids:
        if not _PAPER_ID.fullmatch(paper_id):
            continue
        status = paper_status(store, paper_id)
        if not state or status.state == state.lower():
            out.append(status)
            if len(out) >= limit:
                break
    return out
