"""The SDK against the real BuildService servicer: create -> wait -> download with every file
checked, the auth hook on every call, and the statuses DownloadArtifacts answers with."""

from __future__ import annotations

import itertools
import json

import grpc
import pytest

from scicustom.app.build.build_records import BuildRecords
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.cli import main
from scicustom.client import (
    BuildStatus,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    WaitTimeout,
)
from tests.unit.client.conftest import BUILD_OPTIONS, workers_in_background
from tests.unit.workers.conftest import TEXT


def _stored_files(ctx, build_id: str) -> dict[str, bytes]:
    """What the workers wrote, read straight from the store (the test has the credentials)."""
    records = BuildRecords(ctx.store, build_id)
    return {f["name"]: ctx.store.get_bytes(f["key"]) for f in records.state().files}


def test_create_wait_and_download_give_the_workers_bytes(served, tmp_path):
    with served.client() as builds:
        created = builds.create(TEXT, **BUILD_OPTIONS)
        assert created.status in (BuildStatus.QUEUED, BuildStatus.RUNNING)
        with workers_in_background(served.ctx):
            done = builds.wait(created.build_id, timeout_s=60)
        assert done.status is BuildStatus.SUCCEEDED and done.n_mcq > 0 and not done.thin
        assert [s.stage for s in done.stages if s.done] == ["vote", "candidates", "cutoff", "select", "generate",
                                                           "complete"]
        written = builds.download(done, tmp_path / "out")
        benchmark = builds.fetch(done.build_id, ["benchmark.jsonl"])
        page = builds.list(page_size=5)
    stored = _stored_files(served.ctx, done.build_id)
    assert {f.name for f in written} == set(stored) >= {"benchmark.jsonl", "config.json"}
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == stored  # byte for byte
    assert max(len(data) for data in stored.values()) > 700  # so some file came in several chunks
    assert all(f.sha256 == r.sha256 for f in written for r in done.files if r.name == f.name)
    assert benchmark == {"benchmark.jsonl": stored["benchmark.jsonl"]}
    assert len(json.loads(stored["benchmark.jsonl"].splitlines()[0])["choices"]) >= 4
    assert [b.build_id for b in page.builds] == [done.build_id] and page.next_page_token == ""
    assert not list(tmp_path.glob(".out.*"))  # no staging directory left behind


def test_auth_hook_metadata_reaches_the_server_and_is_asked_for_on_every_call(served):
    tokens = (f"token-{n}" for n in itertools.count(1))
    with served.client(metadata=lambda: [("authorization", f"Bearer {next(tokens)}"), ("x-tenant", "lab-7")]) as c:
        build = c.create(TEXT, **BUILD_OPTIONS)
        c.get(build.build_id)
        c.cancel(build.build_id)
        with pytest.raises(DeadlineExceededError):  # no workers: the build stays queued
            list(c.watch(build.build_id, timeout_s=0.3))
    seen = [(method.rsplit("/", 1)[-1], md.get("authorization"), md.get("x-tenant")) for method, md in served.log.calls]
    assert seen == [("CreateBuild", "Bearer token-1", "lab-7"), ("GetBuild", "Bearer token-2", "lab-7"),
                    ("CancelBuild", "Bearer token-3", "lab-7"), ("WatchBuild", "Bearer token-4", "lab-7")]


def test_download_answers_not_found_failed_precondition_and_names_a_bad_name(served, tmp_path):
    with served.client() as builds:
        with pytest.raises(NotFoundError) as missing:
            builds.fetch("b-missing")
        assert missing.value.code == grpc.StatusCode.NOT_FOUND
        queued = builds.create(TEXT, **BUILD_OPTIONS)  # no workers run: it stays queued
        with pytest.raises(FailedPreconditionError, match="only a succeeded build"):
            builds.download(queued.build_id, tmp_path / "never")
        assert not (tmp_path / "never").exists()
        with pytest.raises(WaitTimeout) as timeout:
            builds.wait(queued.build_id, timeout_s=0.3)
        assert timeout.value.last.status is BuildStatus.QUEUED
        with workers_in_background(served.ctx):
            done = builds.wait(queued.build_id, timeout_s=60)
        with pytest.raises(InvalidArgumentError) as bad:
            builds.fetch(done, ["benchmark.jsonl", "../etc/passwd"])
        assert bad.value.field == "names" and "'../etc/passwd' is not a file of build" in bad.value.problem
    # The wire statuses themselves, without the SDK.
    stub = pb_grpc.BuildServiceStub(grpc.insecure_channel(served.address))
    for request, code in ((pb.DownloadArtifactsRequest(build_id="b-missing"), grpc.StatusCode.NOT_FOUND),
                          (pb.DownloadArtifactsRequest(build_id="../x"), grpc.StatusCode.INVALID_ARGUMENT),
                          (pb.DownloadArtifactsRequest(build_id=done.build_id, names=["x", "x"]),
                           grpc.StatusCode.INVALID_ARGUMENT)):
        with pytest.raises(grpc.RpcError) as error:
            list(stub.DownloadArtifacts(request, timeout=10))
        assert error.value.code() == code


def test_remote_build_command_needs_only_the_service_address(served, tmp_path, monkeypatch, capsys):
    """`scicustom remote build --wait --download DIR` with a home that has no store and no S3 settings."""
    for name in ("SCICUSTOM_S3_ENDPOINT", "SCICUSTOM_S3_ACCESS_KEY", "SCICUSTOM_S3_SECRET_KEY", "SCICUSTOM_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "caller-home"))
    monkeypatch.setenv("SCICUSTOM_BUILD_SERVICE_ADDRESS", served.address)
    args = ["remote", "build", "--requirement", TEXT, "--k1", "2", "--k2", "20", "--proxy-samples", "10", "--seed",
            "1", "--relevance-quantile", "0.75", "--wait", "--download", str(tmp_path / "out")]
    with workers_in_background(served.ctx):
        code = main(args)
    out = capsys.readouterr()
    assert code == 0, out.err
    (build_id,) = [line.split()[1] for line in out.err.splitlines() if line.startswith("build ")]
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == _stored_files(served.ctx, build_id)
    assert f"build {build_id} succeeded" in out.out
    assert not (tmp_path / "caller-home").exists()  # nothing was read or written on the caller's side
    assert main(args) == 2  # the directory exists now: refused before a build is queued
    assert "--download: " in capsys.readouterr().err
    assert main(["remote", "get", build_id]) == 0 and "succeeded" in capsys.readouterr().out
    assert main(["remote", "watch", build_id]) == 0 and build_id in capsys.readouterr().out
    assert main(["remote", "list", "--json"]) == 0
    assert [b["build_id"] for b in json.loads(capsys.readouterr().out)["builds"]] == [build_id]
    assert main(["remote", "download", build_id, "--out", str(tmp_path / "one"), "--name", "benchmark.jsonl"]) == 0
    assert [p.name for p in (tmp_path / "one").iterdir()] == ["benchmark.jsonl"]
    assert main(["remote", "download", build_id, "--out", str(tmp_path / "two"), "--name", "nope.json"]) == 2
    assert "names: 'nope.json' is not a file of build" in capsys.readouterr().err


def test_cluster_profile_build_downloads_through_the_service(served, tmp_path, monkeypatch, capsys):
    """`scicustom --profile cluster build` with no S3 settings at all: the files come through the RPC."""
    for name in ("SCICUSTOM_S3_ENDPOINT", "SCICUSTOM_S3_ACCESS_KEY", "SCICUSTOM_S3_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "caller-home"))
    monkeypatch.setenv("SCICUSTOM_BUILD_SERVICE_ADDRESS", served.address)
    with workers_in_background(served.ctx):
        code = main(["--profile", "cluster", "build", "--requirement", TEXT, "--k1", "2", "--k2", "20",
                     "--proxy-samples", "10", "--seed", "1", "--relevance-quantile", "0.75",
                     "--out", str(tmp_path / "out")])
    out = capsys.readouterr()
    assert code == 0, out.err
    (build_id,) = [line.split()[1] for line in out.err.splitlines() if line.startswith("build ")]
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == _stored_files(served.ctx, build_id)
