"""Every RPC of every service, with requests generated from its protobuf descriptor and with raw
bytes on the wire, through a real loopback server with the interceptors `scicustom service` installs.

Property: a call ends OK or with a status a caller can act on (ALLOWED), never UNKNOWN/INTERNAL or
a hang; INVALID_ARGUMENT details read "field: problem" naming a field of the request; and a call
that fails writes nothing: no object store key (a recording store notes them) and no file of the
ontology workspace: no partial artifact.

The heavy ports are doubles (tests/fuzz/rpc_world.py): requests that pass validation run the real
OK path on a tiny home with a scripted LLM. A watch stream (WatchBuild, WatchPaper) is read for its
first message, the current state, then cancelled: on a live build or paper it never ends by itself
and sends nothing more until the state changes; other server streams are read to the end.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import given
from hypothesis import strategies as st

from scicustom.builds.v1 import builds_pb2
from scicustom.ingest.v1 import ingest_pb2
from scicustom.papers.v1 import papers_pb2
from tests.fuzz.fuzz_settings import fuzzed
from tests.fuzz.proto_messages import messages
from tests.fuzz.rpc_world import SERVICES, RecordingStore, bindings, rpc_context
from tests.support.grpc_loopback import loopback

ALLOWED = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
           grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.RESOURCE_EXHAUSTED,
           grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.ABORTED, grpc.StatusCode.UNAUTHENTICATED,
           grpc.StatusCode.PERMISSION_DENIED}
# A field path, its map keys quoted as Python writes them (a CSV column name may hold spaces or ':').
FIELD_PROBLEM = re.compile(r"""(?P<field>(?:[^\s:\[]|\[(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\]'"]*)\])+): \S""")
CALL_TIMEOUT_S = 60.0  # a guard against hangs: no generated request should come near it
STREAM_READ = 50  # chunks of a download; a watch is read for its first message (see _read_stream)
REQUIREMENT_TEXT = "virology: virus capsid, viral genome and virus replication in the host cell"
REQUIREMENT_YAML = "requirement: vir\ndomain: virology\ndescription: virus capsid and viral genome\nk1: 2\nk2: 5\n"


def _methods() -> list[MethodDescriptor]:
    out = []
    for name in SERVICES:
        module = __import__(f"scicustom.{name}.v1.{name}_pb2", fromlist=["DESCRIPTOR"])
        for service in module.DESCRIPTOR.services_by_name.values():
            out.extend(service.methods)
    return out


METHODS = _methods()


def method_named(service: str, name: str) -> MethodDescriptor:
    return next(m for m in METHODS if (m.containing_service.name, m.name) == (service, name))


class ServedWorld:
    def __init__(self, channel: grpc.Channel, hints: dict[str, st.SearchStrategy[Any]], store: RecordingStore,
                 workspace: Path) -> None:
        self.channel = channel
        self.hints = hints
        self.store = store          # notes the keys each call writes
        self.workspace = workspace  # the ontology workspace: its files are not in the object store
        self.internal_logs: list[logging.LogRecord] = []

    def files(self) -> dict[str, tuple[int, int]]:
        """The workspace's files, path -> (size, mtime_ns)."""
        return {str(p.relative_to(self.workspace)): (p.stat().st_size, p.stat().st_mtime_ns)
                for p in self.workspace.rglob("*") if p.is_file()}

    def __repr__(self) -> str:  # a failing example prints its arguments: keep this one short
        return "ServedWorld(...)"


class _Collect(logging.Handler):
    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record)


def _call(channel: grpc.Channel, method: MethodDescriptor) -> Callable[..., Any]:
    path = f"/{method.containing_service.full_name}/{method.name}"
    reply = GetMessageClass(method.output_type).FromString
    kind = {(False, False): channel.unary_unary, (False, True): channel.unary_stream,
            (True, False): channel.stream_unary, (True, True): channel.stream_stream}
    return kind[(method.client_streaming, method.server_streaming)](
        path, request_serializer=lambda m: m.SerializeToString(), response_deserializer=reply)


def _seed(channel: grpc.Channel, ctx: Any) -> dict[str, list[str]]:
    """Real ids for the generated requests to name: a queued build, a batch, a paper, items, units."""
    build = _call(channel, method_named("BuildService", "CreateBuild"))(builds_pb2.CreateBuildRequest(
        requirement_text=REQUIREMENT_TEXT, k1=2, k2=5, proxy_samples=3, seed=1), timeout=30)
    batch = _call(channel, method_named("IngestService", "SubmitPaper"))(ingest_pb2.SubmitPaperRequest(
        paper_id="p1", title="Viruses", licence="CC0",
        items=[ingest_pb2.PaperItem(question="What protects the viral genome?", answer="the capsid")]), timeout=30)
    paper = _call(channel, method_named("PaperService", "SubmitPaper"))(iter([papers_pb2.SubmitPaperChunk(
        file_name="virus.md", data=b"# Viral capsids\n\nThe capsid protects the viral genome.\n")]), timeout=30)
    return {"build_id": [build.build_id], "batch_id": [batch.batch_id], "paper_id": [paper.paper_id],
            "item_id": [it.id for it in ctx.corpus.load_items()][:20],
            "unit_id": [u.id for u in ctx.catalog.units]}


@contextmanager
def served_world(home: Path) -> Iterator[ServedWorld]:
    ctx = rpc_context(home)
    with loopback(bindings(ctx)) as channel:
        ids = _seed(channel, ctx)
        one_of = {name: st.sampled_from(values) for name, values in ids.items()}
        hints: dict[str, st.SearchStrategy[Any]] = {
            **one_of, "since_build_id": one_of["build_id"], "item_ids": one_of["item_id"],
            "unit_ids": one_of["unit_id"], "voted_unit_ids": one_of["unit_id"],
            "requirement_text": st.just(REQUIREMENT_TEXT), "text": st.just(REQUIREMENT_TEXT),
            "requirement_yaml": st.just(REQUIREMENT_YAML), "yaml": st.just(REQUIREMENT_YAML),
            "sources": st.sampled_from(["tinyqa", "tinyopen", "tinyonto"]),
            "names": st.sampled_from(["benchmark.jsonl", "config.json"]),
            "k1": st.integers(1, 5), "k2": st.integers(1, 8), "proxy_samples": st.integers(1, 5),
            "page_size": st.integers(1, 5), "limit": st.integers(1, 5), "top_k": st.integers(1, 5),
            "k": st.integers(1, 5), "samples": st.integers(1, 5),
        }
        served = ServedWorld(channel, hints, ctx.store, ctx.ontology_workspace.root)
        handler = _Collect(served.internal_logs)
        logging.getLogger("scicustom").addHandler(handler)
        try:
            yield served
        finally:
            logging.getLogger("scicustom").removeHandler(handler)


# Calls that create things (builds, batches, papers, imports) run in a home of their own: thousands
# of generated papers in the shared one would make every ListPapers read thousands of records.
CREATING = {("BuildService", "CreateBuild"), ("IngestService", "SubmitPaper"), ("IngestService", "ImportCorpus"),
            ("PaperService", "SubmitPaper"), ("OntologyService", "ImportOntology")}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedWorld]:
    with served_world(tmp_path_factory.mktemp("rpc")) as served:
        yield served


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedWorld]:
    with served_world(tmp_path_factory.mktemp("rpc-scratch")) as served:
        yield served


def check_status(world: ServedWorld, request_type: Descriptor, call: Callable[[], Any]) -> grpc.StatusCode:
    """Runs `call`; fails unless it ends OK or with an allowed status naming a field of the request."""
    world.internal_logs.clear()
    world.store.changed.clear()
    before = world.files()
    try:
        call()
    except grpc.RpcError as error:
        code, details = error.code(), error.details() or ""
    else:
        return grpc.StatusCode.OK
    logged = "\n".join(logging.Formatter().format(r) for r in world.internal_logs)
    assert code in ALLOWED, f"{code.name}: {details}\n{logged}"
    assert not world.store.changed, f"{code.name} ({details[:200]}) wrote {world.store.changed[:5]}"
    after = world.files()
    assert after == before, f"{code.name} ({details[:200]}) left files behind: {sorted(set(after) ^ set(before))[:5]}"
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        match = FIELD_PROBLEM.match(details)
        assert match, f"INVALID_ARGUMENT without 'field: problem': {details!r}"
        root = re.split(r"[.\[]", match["field"])[0]
        named = {*request_type.fields_by_name, *request_type.oneofs_by_name, "request"}
        assert root in named, \
            f"{details!r} names {root!r}, not a field of {request_type.name}"
    return code


def _send(world: ServedWorld, method: MethodDescriptor, requests: list[Message]) -> None:
    call = _call(world.channel, method)
    if method.client_streaming:
        if method.server_streaming:
            raise NotImplementedError("no bidirectional RPC in the platform")
        call(iter(requests), timeout=CALL_TIMEOUT_S)
        return
    (request,) = requests
    if not method.server_streaming:
        call(request, timeout=CALL_TIMEOUT_S)
        return
    _read_stream(method, call(request, timeout=CALL_TIMEOUT_S))


def _read_stream(method: MethodDescriptor, stream: Any) -> None:
    limit = 1 if method.name.startswith("Watch") else STREAM_READ
    try:
        for n, _ in enumerate(stream, 1):
            if n >= limit:
                break
    finally:
        stream.cancel()


@pytest.mark.parametrize("method", METHODS, ids=[f"{m.containing_service.name}.{m.name}" for m in METHODS])
@fuzzed()
@given(data=st.data())
def test_generated_requests_end_in_a_clear_status(world: ServedWorld, scratch: ServedWorld,
                                                  method: MethodDescriptor, data: st.DataObject) -> None:
    if (method.containing_service.name, method.name) in CREATING:
        world = scratch
    strategy = messages(method.input_type, world.hints)
    count = data.draw(st.integers(0, 4)) if method.client_streaming else 1
    requests = [data.draw(strategy) for _ in range(count)]
    check_status(world, method.input_type, lambda: _send(world, method, requests))


@fuzzed()
@given(method=st.sampled_from(METHODS), raw=st.binary(max_size=256))
def test_raw_bytes_on_the_wire_end_in_a_clear_status(world: ServedWorld, method: MethodDescriptor, raw: bytes) -> None:
    path = f"/{method.containing_service.full_name}/{method.name}"
    channel = world.channel
    kind = {(False, False): channel.unary_unary, (False, True): channel.unary_stream,
            (True, False): channel.stream_unary}[(method.client_streaming, method.server_streaming)]
    call = kind(path)  # no serializers: the bytes go out as they are

    def send() -> None:
        if method.client_streaming:
            call(iter([raw]), timeout=CALL_TIMEOUT_S)
        elif method.server_streaming:
            _read_stream(method, call(raw, timeout=CALL_TIMEOUT_S))
        else:
            call(raw, timeout=CALL_TIMEOUT_S)

    check_status(world, method.input_type, send)


# -- found by this fuzzing: each input as a plain test -------------------------------------------------
def _status(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    try:
        call()
    except grpc.RpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


def test_found_bytes_that_are_no_request_message_are_invalid_argument(world: ServedWorld) -> None:
    # grpc itself answered INTERNAL "Exception deserializing request!" before any handler ran.
    for method in (method_named("BuildService", "GetBuild"), method_named("TaggerService", "Tag")):
        call = world.channel.unary_unary(f"/{method.containing_service.full_name}/{method.name}")
        code, details = _status(partial(call, b"\xff", timeout=10))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("request: "), details
    upload = method_named("PaperService", "SubmitPaper")
    path = f"/{upload.containing_service.full_name}/{upload.name}"
    code, details = _status(lambda: world.channel.stream_unary(path)(iter([b"\x0a\xff"]), timeout=10))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("request: "), details


@pytest.mark.parametrize("name", ["GetBuild", "CancelBuild", "WatchBuild"])
def test_found_a_build_id_longer_than_a_file_name_is_invalid_argument(world: ServedWorld, name: str) -> None:
    # It reached the filesystem store: OSError "File name too long", INTERNAL.
    method = method_named("BuildService", name)
    request = GetMessageClass(method.input_type)(build_id="x" * 1000)
    code, details = _status(lambda: _send(world, method, [request]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("build_id: "), details


@pytest.mark.parametrize("key", ["/", "x" * 1000, "a/" + "y" * 300])
def test_found_a_paper_object_key_outside_the_key_rule_is_invalid_argument(world: ServedWorld, key: str) -> None:
    # ValueError "invalid object key" and OSError "File name too long" from the store, INTERNAL.
    upload = method_named("PaperService", "SubmitPaper")
    code, details = _status(lambda: _send(world, upload, [papers_pb2.SubmitPaperChunk(object_key=key)]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("object_key: "), details


def test_found_over_long_object_keys_are_refused_by_the_key_rule(tmp_path: Any) -> None:
    from scicustom.adapters.filesystem_store import FilesystemObjectStore

    store = FilesystemObjectStore(tmp_path)
    for key in ("x" * 201, "a/" * 600 + "b"):
        for call in (partial(store.exists, key), partial(store.get_bytes, key), partial(store.put_bytes, key, b"x")):
            with pytest.raises(ValueError, match="invalid object key"):
                call()
    store.put_bytes("y" * 200, b"ok")  # the longest segment, with its temp file's affixes, is a file name
    assert store.get_bytes("y" * 200) == b"ok"


def test_found_a_search_text_the_embedder_reads_nothing_in_finds_nothing(world: ServedWorld) -> None:
    # The hashing embedder gives "0" a zero vector; the vector index refused it with ValueError, INTERNAL.
    from scicustom.retrieval.v1 import retrieval_pb2

    response = _call(world.channel, method_named("RetrievalService", "Search"))(
        retrieval_pb2.SearchRequest(text="0"), timeout=10)
    assert list(response.hits) == []


def test_found_a_negative_seed_is_invalid_argument(world: ServedWorld) -> None:
    # JudgeRelevance: numpy's default_rng(-1) raised ValueError (INTERNAL); CreateBuild stored the build
    # and its vote stage would have failed the same way in a worker.
    from scicustom.jury.v1 import jury_pb2

    judge = jury_pb2.JudgeRelevanceRequest(requirement=jury_pb2.Requirement(text=REQUIREMENT_TEXT),
                                           item_ids=["synthetic-x"], seed=-1)
    code, details = _status(partial(_send, world, method_named("JuryService", "JudgeRelevance"), [judge]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("seed: "), details
    create = builds_pb2.CreateBuildRequest(requirement_text=REQUIREMENT_TEXT, seed=-1)
    code, details = _status(partial(_send, world, method_named("BuildService", "CreateBuild"), [create]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("seed: "), details


def test_found_a_requirement_key_with_a_colon_is_named_by_its_mapping(world: ServedWorld) -> None:
    # The details read "requirement_yaml.:: unknown key ...": no field could be read from them.
    create = builds_pb2.CreateBuildRequest(requirement_yaml="::")
    code, details = _status(partial(_send, world, method_named("BuildService", "CreateBuild"), [create]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("requirement_yaml: unknown key ':'")


def test_found_an_uploaded_ontologys_long_name_is_invalid_argument(world: ServedWorld) -> None:
    # The name became the upload's file name: OSError "File name too long", INTERNAL.
    from scicustom.ontology.v1 import ontology_pb2

    request = ontology_pb2.ImportOntologyRequest(file=ontology_pb2.OntologyFile(
        name="x" * 1000, format=ontology_pb2.ONTOLOGY_FILE_FORMAT_OBO, content=b"format-version: 1.2\n"))
    code, details = _status(partial(_send, world, method_named("OntologyService", "ImportOntology"), [request]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details == "file.name: has 1000 characters, above the limit 64"
