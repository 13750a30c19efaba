"""The stages of a paper after submission, each a function of stored records (idempotent: a stage
whose output exists returns it again):

  parse:          source -> parsed.json (the parse artifact); a newer version of the same DOI/PMID
                  supersedes the older paper
  extract qa:     parsed -> grounded cloze/definition MCQs (offline) or LLM-generated grounded items,
                  with provenance -> one batch of corpus items for the tag and index stages
  extract recipes / hypotheses: parsed -> AlchemyBench recipes / Matter-to-Mechanism instances
                  through the LLM port; without an LLM they report "needs an LLM" and make nothing up

Bad input raises PaperRejected with the reason: the worker dead-letters the event and the paper
is FAILED; no stage writes anything before it has succeeded, so nothing is half-indexed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.app.ingest.item_batches import WrittenBatch, write_imported
from scicustom.app.papers.paper_records import (
    NEEDS_LLM,
    PaperKeys,
    check_paper_id,
    identity_key,
)
from scicustom.app.stored_json import read_json, write_json
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.papers.cloze import GENERATOR, ClozeResult, GeneratedItem, generate_cloze
from scicustom.core.papers.document import ParsedPaper, UnreadablePaper
from scicustom.core.papers.formats import parse_paper
from scicustom.core.papers.initialisms import InitialismIndex
from scicustom.core.units import UnitCatalog
from scicustom.ports import ObjectStore

CLOZE_SOURCE = "paper-cloze"
UNSPECIFIED_LICENCE = "unspecified (see the paper)"


class PaperRejected(ValueError):
    """The paper cannot go on (unreadable, refused, no text): FAILED with this reason, dead-lettered."""


@dataclass(frozen=True)
class Parsed:
    paper_id: str
    parsed: ParsedPaper
    superseded: str  # the paper id this one replaced, or ""


def load_parsed(store: ObjectStore, paper_id: str) -> ParsedPaper:
    record = read_json(store, PaperKeys(paper_id).parsed)
    if record is None:
        raise PaperRejected(f"paper {paper_id} is not parsed")
    return ParsedPaper.from_record(record)


def _supersede(store: ObjectStore, paper_id: str, parsed: ParsedPaper) -> str:
    """Points the paper's DOI and PMID at it; an earlier paper they named is superseded."""
    replaced = ""
    for identity in ([f"doi:{parsed.doi}"] if parsed.doi else []) + ([f"pmid:{parsed.pmid}"] if parsed.pmid else []):
        key = identity_key(identity)
        previous = read_json(store, key)
        if previous is not None and previous["paper_id"] != paper_id:
            old = str(previous["paper_id"])
            if read_json(store, PaperKeys(old).superseded) is None:
                write_json(store, PaperKeys(old).superseded, {"by": paper_id, "identity": identity})
            replaced = old
        if previous is None or previous["paper_id"] != paper_id:
            write_json(store, key, {"paper_id": paper_id, "identity": identity})
    if replaced:  # read again when the parse event is redelivered, so the withdrawal is retried
        write_json(store, PaperKeys(paper_id).supersedes, {"paper_id": replaced})
    return replaced


def parse_stored(store: ObjectStore, paper_id: str) -> Parsed:
    check_paper_id(paper_id)
    keys = PaperKeys(paper_id)
    existing = read_json(store, keys.parsed)
    if existing is not None:
        replaced = read_json(store, keys.supersedes)
        return Parsed(paper_id, ParsedPaper.from_record(existing), str((replaced or {}).get("paper_id", "")))
    meta = read_json(store, keys.meta)
    if meta is None:
        raise PaperRejected(f"paper {paper_id} has no submission record")
    try:
        data = store.get_bytes(keys.source)
    except KeyError:
        raise PaperRejected(f"paper {paper_id} has no stored bytes") from None
    try:
        parsed = parse_paper(data, str(meta["file_name"]))
    except UnreadablePaper as exc:
        raise PaperRejected(str(exc)) from None
    except RecursionError:
        raise PaperRejected("the document nests too deeply") from None
    write_json(store, keys.parsed, parsed.to_record())
    return Parsed(paper_id, parsed, _supersede(store, paper_id, parsed))


# Extraction ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Extracted:
    paper_id: str
    extractor: str
    status: str  # extracted, superseded, or NEEDS_LLM
    instances: int
    rejected: int
    batch: WrittenBatch | None
    source: str


def provenance(paper_id: str, parsed: ParsedPaper, section: str, span: tuple[int, int], extractor: str,
                model_version: str) -> dict[str, Any]:
    return {"paper_id": paper_id, "doi": parsed.doi, "pmid": parsed.pmid, "section": section,
            "char_span": list(span), "licence": parsed.licence or UNSPECIFIED_LICENCE, "extractor": extractor,
            "model_version": model_version}


def _jsonl(records: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(canonical_bytes(r) + b"\n" for r in records)


def _finish(store: ObjectStore, paper_id: str, extractor: str, status: str, instances: Sequence[dict[str, Any]],
            rejected: Sequence[dict[str, Any]], items: Sequence[CorpusItem], source: str,
            meta: dict[str, Any], extra: dict[str, Any] | None = None) -> Extracted:
    keys = PaperKeys(paper_id)
    batch = write_imported(store, meta, items) if items else None
    store.put_bytes(keys.instances(extractor), _jsonl(instances))
    store.put_bytes(keys.rejected(extractor), _jsonl(rejected))
    report = {"status": status, "instances": len(instances), "rejected": len(rejected),
              "batch_id": batch.batch_id if batch else "", "item_ids": batch.item_ids if batch else [],
              "source": source, **(extra or {})}
    write_json(store, keys.report(extractor), report)  # last: its presence means the stage is done
    return Extracted(paper_id, extractor, status, len(instances), len(rejected), batch, source)


def _existing(store: ObjectStore, paper_id: str, extractor: str) -> Extracted | None:
    report = read_json(store, PaperKeys(paper_id).report(extractor))
    if report is None:
        return None
    batch = None
    if report.get("batch_id"):
        ids = [str(i) for i in report["item_ids"]]
        batch = WrittenBatch(str(report["batch_id"]), len(ids), ids)
    return Extracted(paper_id, extractor, str(report["status"]), int(report["instances"]),
                     int(report["rejected"]), batch, str(report.get("source", "")))


def _superseded(store: ObjectStore, paper_id: str, extractor: str) -> Extracted | None:
    if read_json(store, PaperKeys(paper_id).superseded) is None:
        return None
    return _finish(store, paper_id, extractor, "superseded", [], [], [], "", {})


def cloze_items(paper_id: str, parsed: ParsedPaper, result: ClozeResult) -> tuple[list[dict[str, Any]],
                                                                                 list[CorpusItem]]:
    """The instances (with provenance) and corpus items of the generated items, in order."""
    licence = parsed.licence or UNSPECIFIED_LICENCE
    subject = parsed.title or paper_id
    instances, items = [], []
    for generated in result.items:
        item = make_item(CLOZE_SOURCE, licence[:100], subject[:1000], generated.question, generated.options,
                         generated.answer_index, generated.answer)
        items.append(item)
        instances.append(_cloze_instance(paper_id, parsed, generated, item.id))
    return instances, items


def _cloze_instance(paper_id: str, parsed: ParsedPaper, generated: GeneratedItem, item_id: str) -> dict[str, Any]:
    return {"kind": "qa", "item_id": item_id, "question": generated.question, "options": list(generated.options),
            "answer_index": generated.answer_index, "answer": generated.answer, "question_type": generated.kind,
            "generator": generated.generator, "evidence": parsed.text[generated.evidence[0]:generated.evidence[1]],
            "answer_span": list(generated.answer_span),
            "distractor_sources": generated.distractor_sources,
            "provenance": provenance(paper_id, parsed, generated.section, generated.evidence, generated.generator,
                                      generated.model_version)}


def definition_vocabulary(catalog: UnitCatalog) -> InitialismIndex:
    """The ontology terms definition questions take distractors from: unit names and their keywords."""
    return InitialismIndex(term for unit in catalog.units for term in (unit.name, *unit.keywords))


def extract_qa_offline(store: ObjectStore, paper_id: str, max_items: int = 50,
                       vocabulary: InitialismIndex | None = None) -> Extracted:
    """Deterministic grounded cloze/definition MCQs (core/papers/cloze.py) as one batch of items;
    `vocabulary`: the ontology terms definition questions may take distractors from."""
    done = _existing(store, paper_id, "qa") or _superseded(store, paper_id, "qa")
    if done is not None:
        return done
    parsed = load_parsed(store, paper_id)
    result = generate_cloze(parsed, max_items=max_items, vocabulary=vocabulary)
    instances, items = cloze_items(paper_id, parsed, result)
    meta = {"source": CLOZE_SOURCE, "origin": paper_id, "title": parsed.title[:1000],
            "licence": (parsed.licence or UNSPECIFIED_LICENCE)[:100]}
    rejected = [{**r, "generator": GENERATOR} for r in result.audit_records()]
    return _finish(store, paper_id, "qa", "extracted", instances, rejected, items, CLOZE_SOURCE, meta,
                   {"generator": GENERATOR, "rejected_by_reason": result.rejected_by_reason(),
                    "candidates": result.candidates})


def record_needs_llm(store: ObjectStore, paper_id: str, extractor: str) -> Extracted:
    """An LLM extractor without an LLM configured: says so and makes nothing up."""
    done = _existing(store, paper_id, extractor) or _superseded(store, paper_id, extractor)
    if done is not None:
        return done
    load_parsed(store, paper_id)
    return _finish(store, paper_id, extractor, NEEDS_LLM, [], [], [], "", {})


LLMExtraction = Callable[[str, ParsedPaper], tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                   list[CorpusItem], str]]


def extract_with(store: ObjectStore, paper_id: str, extractor: str, run: LLMExtraction, meta_source: str) -> Extracted:
    """An extractor that needs an LLM: `run` returns (instances, rejected, corpus items, model)."""
    done = _existing(store, paper_id, extractor) or _superseded(store, paper_id, extractor)
    if done is not None:
        return done
    parsed = load_parsed(store, paper_id)
    instances, rejected, items, model = run(paper_id, parsed)
    meta = {"source": meta_source, "origin": paper_id, "title": parsed.title[:1000],
            "licence": (parsed.licence or UNSPECIFIED_LICENCE)[:100]}
    return _finish(store, paper_id, extractor, "extracted", instances, rejected, items, meta_source, meta,
                   {"model": model})
