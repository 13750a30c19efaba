"""The edges over the same use cases: the CLI (`papers submit --json`, `papers import --medline`,
`papers watch-incoming`) on the embedded profile, and PaperService over gRPC on loopback."""

from __future__ import annotations

import json

import grpc
import pytest

from scicustom.cli import main
from scicustom.papers.servicer import binding
from scicustom.papers.v1 import papers_pb2 as pb
from scicustom.papers.v1 import papers_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import loopback
from tests.support.real_papers import JATS, MEDLINE_SMALL, PDF, TEI_WITHDRAWN, member, member_file
from tests.unit.ingest_pipeline.conftest import make_context


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SCICUSTOM_PROFILE", raising=False)
    return tmp_path / "home"


def test_cli_submit_json(home, capsys):
    files = [member_file("pubmed", JATS[0]), member_file("grobid", TEI_WITHDRAWN)]
    code = main(["papers", "submit", *map(str, files), "--wait", "--json"])
    assert code == 1  # one paper failed
    papers = json.loads(capsys.readouterr().out)["papers"]
    assert [p["file"] for p in papers] == [str(f) for f in files]
    ok, failed = papers
    assert ok["state"] == "EXTRACTED" and ok["instances"]["qa"] > 5 and "reason" not in ok
    assert ok["instances"] == {"qa": ok["instances"]["qa"], "recipe": 0, "hypothesis": 0}
    assert failed["state"] == "FAILED" and failed["reason"] == "the paper has no text"
    assert len(ok["id"]) == 32
    # The items are in the corpus for `scicustom corpus tag`; submitting again adds nothing.
    assert main(["papers", "submit", str(files[0]), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["papers"][0]
    assert again["duplicate"] and again["id"] == ok["id"]
    assert main(["papers", "get", "0" * 31]) == 2


def test_cli_medline_import_and_incoming_prefix(home, capsys):
    assert main(["papers", "import", "--medline", str(member_file("pubmed", MEDLINE_SMALL))]) == 0
    assert "1 articles: 1 submitted" in capsys.readouterr().out
    incoming = home / "store" / "incoming"
    incoming.mkdir(parents=True)
    (incoming / "paper.nxml").write_bytes(member("pubmed", JATS[2]))
    assert main(["papers", "watch-incoming", "--once", "--json"]) == 0
    (taken,) = json.loads(capsys.readouterr().out)["papers"]
    assert taken["file"] == "paper.nxml" and taken["state"] == "EXTRACTED"
    assert main(["papers", "watch-incoming", "--once", "--json"]) == 0  # nothing new
    assert capsys.readouterr().out == ""


def test_cli_submits_to_a_remote_paper_service_without_store_credentials(tmp_path, home, monkeypatch, capsys):
    """The CLI's home has no corpus or store of its own: everything goes through PaperService."""
    import threading

    from scicustom.commands.service import server_interceptors
    from scicustom.grpc_server.server import start_server
    from scicustom.ingest.worker import IngestStageHandler
    from scicustom.papers.worker import PaperStageHandler
    from scicustom.workers.in_process import run_until
    from scicustom.workers.topics import INGEST_STAGES, PAPER_STAGES, Topics
    from tests.unit.ingest_pipeline.conftest import PREFIX

    (tmp_path / "service").mkdir()
    service = make_context(tmp_path / "service")
    files = [member_file("pubmed", JATS[0]), member_file("grobid", TEI_WITHDRAWN)]
    server, _, port = start_server([binding(service)], "127.0.0.1", 0, max_message_bytes=16 * 1024 * 1024,
                                   interceptors=server_interceptors())
    try:
        monkeypatch.setenv("SCICUSTOM_PAPER_SERVICE_ADDRESS", f"127.0.0.1:{port}")
        topics = Topics(PREFIX)
        handlers = [PaperStageHandler(s, service, topics) for s in PAPER_STAGES] + \
            [IngestStageHandler(s, service, topics) for s in INGEST_STAGES]
        stop = threading.Event()
        workers = threading.Thread(target=run_until, args=(service.event_bus, topics, handlers, stop.is_set, 120.0))
        workers.start()
        try:
            code = main(["papers", "submit", *map(str, files), "--wait", "--timeout", "120", "--json"])
        finally:
            stop.set()
            workers.join()
    finally:
        server.stop(None)
    assert code == 1  # one paper failed
    ok, failed = json.loads(capsys.readouterr().out)["papers"]
    assert ok["state"] == "INDEXED" and ok["instances"]["qa"] > 5 and ok["file"] == str(files[0])
    assert failed["state"] == "FAILED" and failed["reason"] == "the paper has no text"
    assert not (home / "store").exists()  # nothing was written on the caller's side
    monkeypatch.setenv("SCICUSTOM_PAPER_SERVICE_ADDRESS", f"127.0.0.1:{port}")  # the server is gone now
    assert main(["papers", "submit", str(files[0])]) == 2
    assert "PaperService at 127.0.0.1" in capsys.readouterr().err


def test_grpc_upload_get_list_and_limits(tmp_path):
    ctx = make_context(tmp_path, paper_max_bytes=4_000_000)
    pdf = member("grobid", PDF)
    with loopback([binding(ctx)]) as channel:
        stub = pb_grpc.PaperServiceStub(channel)
        chunks = [pb.SubmitPaperChunk(file_name="fes.pdf")] + \
            [pb.SubmitPaperChunk(data=pdf[i:i + 65536]) for i in range(0, len(pdf), 65536)]
        paper = stub.SubmitPaper(iter(chunks))
        assert paper.state == pb.PAPER_STATE_SUBMITTED and paper.size_bytes == len(pdf)
        assert stub.GetPaper(pb.GetPaperRequest(paper_id=paper.paper_id)).file_name == "fes.pdf"
        big = stub.SubmitPaper(iter([pb.SubmitPaperChunk(file_name="big.pdf", size_bytes=2 * 1024**3)]))
        assert big.state == pb.PAPER_STATE_FAILED and "2147483648 bytes" in big.reason
        listed = stub.ListPapers(pb.ListPapersRequest(state=pb.PAPER_STATE_FAILED))
        assert [p.paper_id for p in listed.papers] == [big.paper_id]
        with pytest.raises(grpc.RpcError) as error:
            stub.SubmitPaper(iter([pb.SubmitPaperChunk(file_name="a/\x01")]))
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as error:
            stub.GetPaper(pb.GetPaperRequest(paper_id="f" * 32))
        assert error.value.code() == grpc.StatusCode.NOT_FOUND
