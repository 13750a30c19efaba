"""PaperService with authentication on: every RPC needs a token; a tenant gets, watches and lists
the papers it submitted only (another's is NOT_FOUND, like an unknown id), and submits stored
objects from its own incoming prefix only. The paper itself is a shared corpus item: the same bytes
from a second tenant are the same paper, which that tenant then sees too."""

from __future__ import annotations

import grpc

from scicustom.papers.servicer import binding
from scicustom.papers.v1 import papers_pb2 as pb
from scicustom.papers.v1 import papers_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import loopback, rpc_error
from tests.support.tenant_tokens import tenants
from tests.unit.ingest_pipeline.conftest import make_context

PAPER = b"# Capsid assembly\n\nThe viral capsid assembles from protein subunits.\n"


def _submit(stub, metadata, **first) -> pb.Paper:
    return stub.SubmitPaper(iter([pb.SubmitPaperChunk(**first)]), metadata=metadata, timeout=10)


def _first_watched(stub, paper_id: str, metadata) -> pb.Paper:
    call = stub.WatchPaper(pb.GetPaperRequest(paper_id=paper_id), metadata=metadata, timeout=10)
    try:
        return next(call)
    finally:
        call.cancel()


def _listed(stub, metadata) -> list[str]:
    return [p.paper_id for p in stub.ListPapers(pb.ListPapersRequest(), metadata=metadata, timeout=10).papers]


def test_each_paper_rpc_is_authenticated_and_scoped_to_the_submitting_tenant(tmp_path):
    ctx = make_context(tmp_path)
    known = tenants(tmp_path, "acme", "globex")
    acme, globex = known.metadata("acme"), known.metadata("globex")
    with loopback([binding(ctx)], interceptors=known.interceptors()) as channel:
        stub = pb_grpc.PaperServiceStub(channel)
        paper = _submit(stub, acme, file_name="capsid.md", data=PAPER)
        request = pb.GetPaperRequest(paper_id=paper.paper_id)
        for call in (lambda md: _submit(stub, md, file_name="x.md", data=b"x"),
                     lambda md: stub.GetPaper(request, metadata=md, timeout=10),
                     lambda md: _first_watched(stub, paper.paper_id, md), lambda md: _listed(stub, md)):
            assert rpc_error(lambda: call(None)).code() == grpc.StatusCode.UNAUTHENTICATED  # noqa: B023
        assert stub.GetPaper(request, metadata=acme, timeout=10).file_name == "capsid.md"
        assert _first_watched(stub, paper.paper_id, acme).paper_id == paper.paper_id
        assert _listed(stub, acme) == [paper.paper_id]

        unknown = rpc_error(lambda: stub.GetPaper(pb.GetPaperRequest(paper_id="0" * 32), metadata=globex, timeout=10))
        for call in (lambda: stub.GetPaper(request, metadata=globex, timeout=10),
                     lambda: _first_watched(stub, paper.paper_id, globex)):
            error = rpc_error(call)
            assert error.code() == grpc.StatusCode.NOT_FOUND
            assert error.details() == unknown.details().replace("0" * 32, paper.paper_id)
        assert _listed(stub, globex) == []

        # Stored objects: only from the tenant's own incoming prefix.
        error = rpc_error(lambda: _submit(stub, globex, object_key=f"papers/{paper.paper_id}/source"))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error.details() == "object_key: must be under tenants/globex/incoming/ (the tenant's own upload prefix)"
        ctx.store.put_bytes("tenants/globex/incoming/own.md", b"# Their own\n\nA different paper.\n")
        own = _submit(stub, globex, object_key="tenants/globex/incoming/own.md")
        assert _listed(stub, globex) == [own.paper_id] and own.paper_id not in _listed(stub, acme)

        # The same bytes are the same (shared) paper: globex learns it is a duplicate and sees it from then on.
        again = _submit(stub, globex, file_name="copy.md", data=PAPER)
        assert again.paper_id == paper.paper_id and again.duplicate
        assert sorted(_listed(stub, globex)) == sorted([own.paper_id, paper.paper_id])
        assert ctx.store.exists(f"tenants/acme/papers/{paper.paper_id}.json")
