"""The embedded path of paper ingestion, end to end on the in-process bus with the same handlers the
Kafka workers run: submit -> parse -> extract -> tag -> index (embedded search index, corpus of
record); duplicates, supersession by DOI, and bad input FAILED with a dead-letter record."""

from __future__ import annotations

import json

import pytest

from scicustom.app.papers.paper_records import PaperKeys, list_papers, paper_status
from scicustom.app.papers.submission import SubmitLimits, submit_paper_bytes, submit_paper_stream
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.worker import IngestStageHandler
from scicustom.papers.worker import PaperStageHandler
from scicustom.workers.in_process import run_until
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters
from scicustom.workers.topics import INGEST_STAGES, PAPER_PARSED, PAPER_STAGES, PAPER_SUBMITTED, Topics
from tests.support.real_papers import JATS, PDF, TEI_WITHDRAWN, member
from tests.unit.ingest_pipeline.conftest import PREFIX, make_context, records
from tests.unit.papers.test_parsers import BILLION_LAUGHS

TOPICS = Topics(PREFIX)


@pytest.fixture
def ctx(tmp_path):
    return make_context(tmp_path)


def _submit(ctx, name: str, data: bytes, limits: SubmitLimits | None = None):
    return submit_paper_bytes(ctx.store, PaperSubmittedPublisher(ctx.store, ctx.event_bus, TOPICS),
                              RefusedPaperDeadLetters(ctx.event_bus, TOPICS), name, data, limits or SubmitLimits())


def _run(ctx, ids, timeout_s: float = 60.0) -> None:
    handlers = [PaperStageHandler(s, ctx, TOPICS) for s in PAPER_STAGES] + \
        [IngestStageHandler(s, ctx, TOPICS) for s in INGEST_STAGES]
    assert run_until(ctx.event_bus, TOPICS, handlers, lambda: all(paper_status(ctx.store, i).terminal for i in ids),
                     timeout_s)


def _dead_letters(ctx, stage: str) -> list[ev.DeadLetter]:
    return [ev.DeadLetter.FromString(r.value) for r in records(ctx.event_bus, TOPICS.dead_letters(stage))]


def test_real_papers_flow_into_the_index_with_provenance(ctx):
    jats, pdf = member("pubmed", JATS[0]), member("grobid", PDF)
    first, second = _submit(ctx, "pone.0046493.nxml", jats), _submit(ctx, "fes.pdf", pdf)
    assert first.state == second.state == "submitted" and not first.duplicate
    _run(ctx, [first.paper_id, second.paper_id])
    for submitted in (first, second):
        status = paper_status(ctx.store, submitted.paper_id)
        assert status.state == "indexed", status
        assert status.instances["qa"] > 5 and status.instances["recipe"] == status.instances["hypothesis"] == 0
        assert status.extractors == {"qa": "extracted", "recipes": "needs an LLM", "hypotheses": "needs an LLM"}
        lines = ctx.store.get_bytes(PaperKeys(submitted.paper_id).instances("qa")).splitlines()
        instances = [json.loads(line) for line in lines]
        assert len(instances) == status.instances["qa"]
        parsed = json.loads(ctx.store.get_bytes(PaperKeys(submitted.paper_id).parsed))
        for instance in instances:
            provenance = instance["provenance"]
            assert provenance["paper_id"] == submitted.paper_id and provenance["extractor"] == "cloze-v1"
            start, end = provenance["char_span"]
            assert parsed["text"][start:end] == instance["evidence"]
            assert set(provenance) >= {"section", "licence", "model_version"}
            item = ctx.search_index.item(instance["item_id"])
            assert item.text.startswith(instance["question"])
    corpus = {it.id: it for it in ctx.corpus.load_items()}
    assert {it.source for it in corpus.values()} == {"paper-cloze"}
    assert {it.format for it in corpus.values()} == {"mcq", "open"}
    # Events: one submitted and one parsed per paper; the parse artifact is the stored document.
    submitted = [ev.Envelope.FromString(r.value) for r in records(ctx.event_bus, TOPICS.of(PAPER_SUBMITTED))]
    parsed_events = [ev.Envelope.FromString(r.value) for r in records(ctx.event_bus, TOPICS.of(PAPER_PARSED))]
    assert len(submitted) == len(parsed_events) == 2
    assert {e.paper.artifact.key for e in parsed_events} == {PaperKeys(first.paper_id).parsed,
                                                             PaperKeys(second.paper_id).parsed}


def test_the_same_bytes_are_one_paper_and_a_new_version_supersedes_the_old(ctx):
    jats = member("pubmed", JATS[1])
    old = _submit(ctx, "v1.nxml", jats)
    again = _submit(ctx, "copy.nxml", jats)
    assert again.paper_id == old.paper_id and again.duplicate
    _run(ctx, [old.paper_id])
    old_ids = {it.id for it in ctx.corpus.load_items()}
    assert old_ids and all(ctx.search_index.item(i) for i in old_ids)
    before = {k: ctx.store.get_bytes(k) for k in ctx.store.list_keys(f"papers/{old.paper_id}/")}
    # A changed version of the same paper (one paragraph of the body less), same DOI.
    cut_at = jats.rindex(b"<p>")
    changed = jats[:cut_at] + jats[jats.index(b"</p>", cut_at) + 4:]
    new = _submit(ctx, "v2.nxml", changed)
    assert new.paper_id != old.paper_id
    _run(ctx, [new.paper_id])
    assert paper_status(ctx.store, old.paper_id).state == "superseded"
    assert paper_status(ctx.store, old.paper_id).superseded_by == new.paper_id
    assert paper_status(ctx.store, new.paper_id).state == "indexed"
    # Nothing of the first paper's own records was rewritten, except its superseded marker.
    for key, data in before.items():
        assert ctx.store.get_bytes(key) == data
    assert [s.paper_id for s in list_papers(ctx.store, "superseded")] == [old.paper_id]
    # Its instances left the corpus and the index (those the new version also has were made again).
    withdrawn = json.loads(ctx.store.get_bytes(PaperKeys(old.paper_id).withdrawn))
    assert withdrawn["items"] == len(old_ids) and withdrawn["removed_from_index"] == len(old_ids)
    (new_batch,) = paper_status(ctx.store, new.paper_id).batch_ids
    new_ids = set(_batch_ids(ctx, new_batch))
    assert {it.id for it in ctx.corpus.load_items()} == new_ids == set(ctx.search_index.item_ids())
    assert not [k for b in withdrawn["batches"] for k in ctx.store.list_keys("") if f"batch-{b}." in k]


def test_a_batch_of_a_superseded_paper_is_never_left_indexed(ctx):
    """The old version's batch reaches the index stage only after the new version was parsed."""
    jats = member("pubmed", JATS[1])
    old = _submit(ctx, "v1.nxml", jats)
    handlers = [PaperStageHandler(s, ctx, TOPICS) for s in PAPER_STAGES]  # no tag/index workers yet

    def extracted(paper_id: str):
        return lambda: paper_status(ctx.store, paper_id).extractors.keys() == {"qa", "recipes", "hypotheses"}

    assert run_until(ctx.event_bus, TOPICS, handlers, extracted(old.paper_id), 60.0)
    cut_at = jats.rindex(b"<p>")
    new = _submit(ctx, "v2.nxml", jats[:cut_at] + jats[jats.index(b"</p>", cut_at) + 4:])
    assert run_until(ctx.event_bus, TOPICS, handlers, extracted(new.paper_id), 60.0)
    _run(ctx, [old.paper_id, new.paper_id])  # now the ingest stages see both papers' batches
    assert paper_status(ctx.store, old.paper_id).state == "superseded"
    (old_batch,) = paper_status(ctx.store, old.paper_id).batch_ids
    report = json.loads(ctx.store.get_bytes(f"ingest/batches/{old_batch}/indexed.json"))
    assert report["withdrawn"] and report["indexed"] == 0
    (new_batch,) = paper_status(ctx.store, new.paper_id).batch_ids
    assert {it.id for it in ctx.corpus.load_items()} == set(_batch_ids(ctx, new_batch))
    assert set(ctx.search_index.item_ids()) == set(_batch_ids(ctx, new_batch))


class _SupersedingIndex:
    """Indexes, then lets a newer version of the paper be parsed (writes its superseded marker)."""

    def __init__(self, inner, store, paper_id: str) -> None:
        self.inner, self.store, self.paper_id = inner, store, paper_id

    def index_items(self, items):
        count = self.inner.index_items(items)
        self.store.put_bytes(PaperKeys(self.paper_id).superseded, b'{"by": "0123", "identity": "doi:x"}')
        return count

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_paper_superseded_while_its_batch_is_indexed_is_taken_out_again(ctx):
    paper = _submit(ctx, "v1.nxml", member("pubmed", JATS[1]))
    handlers = [PaperStageHandler(s, ctx, TOPICS) for s in PAPER_STAGES] + [IngestStageHandler("tag", ctx, TOPICS)]
    assert run_until(ctx.event_bus, TOPICS, handlers,
                     lambda: any(k.endswith("/tagged.jsonl") for k in ctx.store.list_keys("ingest/batches/")), 60.0)
    inner = ctx.search_index
    ctx.search_index = _SupersedingIndex(inner, ctx.store, paper.paper_id)
    (batch,) = paper_status(ctx.store, paper.paper_id).batch_ids
    indexed = f"ingest/batches/{batch}/indexed.json"
    assert run_until(ctx.event_bus, TOPICS, [IngestStageHandler("index", ctx, TOPICS)],
                     lambda: ctx.store.exists(indexed), 60.0)
    report = json.loads(ctx.store.get_bytes(indexed))
    assert report["withdrawn"] and report["indexed"] == 0
    assert inner.item_ids() == [] and ctx.corpus.load_items() == []


def _batch_ids(ctx, batch_id: str) -> list[str]:
    lines = ctx.store.get_bytes(f"ingest/batches/{batch_id}/imported.jsonl").splitlines()
    return [json.loads(line)["id"] for line in lines]


def test_bad_input_fails_with_a_reason_and_a_dead_letter(ctx):
    pdf = member("grobid", PDF)
    bad = {"corrupt.pdf": pdf[: len(pdf) // 3], "bomb.xml": BILLION_LAUGHS,
           "withdrawn.tei.xml": member("grobid", TEI_WITHDRAWN), "noise.bin": b"\x00\x01 not a paper"}
    statuses = {name: _submit(ctx, name, data) for name, data in bad.items()}
    oversize = submit_paper_stream(ctx.store, PaperSubmittedPublisher(ctx.store, ctx.event_bus, TOPICS),
                                   RefusedPaperDeadLetters(ctx.event_bus, TOPICS), "huge.pdf",
                                   iter([pdf, pdf, pdf]), SubmitLimits(max_bytes=len(pdf) * 2))
    empty = _submit(ctx, "empty.md", b"")
    assert oversize.state == empty.state == "failed"
    assert "limit" in oversize.reason and empty.reason == "the paper is empty"
    _run(ctx, [s.paper_id for s in statuses.values()])
    reasons = {name: paper_status(ctx.store, s.paper_id) for name, s in statuses.items()}
    assert all(s.state == "failed" and s.failed_stage == "parse" for s in reasons.values())
    assert "corrupt PDF" in reasons["corrupt.pdf"].reason
    assert "declares entities" in reasons["bomb.xml"].reason
    assert "no text" in reasons["withdrawn.tei.xml"].reason
    assert "unknown paper format" in reasons["noise.bin"].reason
    letters = _dead_letters(ctx, "parse")
    assert sorted(letter.error for letter in letters) == sorted(s.reason for s in reasons.values())
    assert {letter.attempts for letter in letters} == {1}  # unreadable input is not retried
    refused = _dead_letters(ctx, "submit")
    assert {letter.error for letter in refused} == {oversize.reason, empty.reason}
    # Nothing of a failed paper reached the corpus, the index or a batch.
    assert ctx.corpus.load_items() == [] and ctx.search_index.item_ids() == []
    assert ctx.store.list_keys("ingest/") == []
    assert paper_status(ctx.store, oversize.paper_id).file_name == "huge.pdf"
