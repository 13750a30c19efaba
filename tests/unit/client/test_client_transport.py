"""The SDK against fake services: retries on UNAVAILABLE (idempotent calls only), deadlines, a
download that resumes after a broken stream, and a hostile service's file names and bytes refused
with nothing written."""

from __future__ import annotations

import hashlib
import random
import time

import grpc
import pytest

from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.client import (
    ArtifactIntegrityError,
    BuildsClient,
    ClientOptions,
    DeadlineExceededError,
    RetryPolicy,
    UnavailableError,
    UnsafeArtifactName,
)
from tests.unit.client.conftest import build_binding, serving
from tests.unit.workers.conftest import TEXT

FILES = {"benchmark.jsonl": b'{"id": "q1"}\n' * 300, "config.json": b'{"seed": 1}\n', "empty.txt": b""}


def _entry(name: str, data: bytes) -> pb.OutputFile:
    return pb.OutputFile(name=name, key=f"builds/b1/output/{name}", sha256=hashlib.sha256(data).hexdigest(),
                         size_bytes=len(data))


def _chunks(name: str, data: bytes, size: int = 1000, sha256: str | None = None) -> list[pb.ArtifactChunk]:
    offsets = list(range(0, len(data), size)) or [0]
    return [pb.ArtifactChunk(name=name, offset=o, data=data[o:o + size], last=o == offsets[-1],
                             sha256=(sha256 or hashlib.sha256(data).hexdigest()) if o == offsets[-1] else "",
                             size_bytes=len(data) if o == offsets[-1] else 0) for o in offsets]


class FakeBuildService(pb_grpc.BuildServiceServicer):
    """Answers from a script: `unavailable[method]` failures first, then the scripted answer."""

    def __init__(self, files: dict[str, bytes] = FILES, listed: dict[str, bytes] | None = None,
                 stream: list[list[pb.ArtifactChunk] | str] | None = None, unavailable: dict[str, int] | None = None,
                 delay_s: float = 0.0) -> None:
        self.listed = files if listed is None else listed
        self.streams = stream if stream is not None else [[c for n, d in files.items() for c in _chunks(n, d)]]
        self.unavailable = dict(unavailable or {})
        self.delay_s = delay_s
        self.requests: list[tuple[str, object]] = []

    def _answer(self, method: str, request: object, context: grpc.ServicerContext) -> None:
        self.requests.append((method, request))
        time.sleep(self.delay_s)
        if self.unavailable.get(method, 0) > 0:
            self.unavailable[method] -= 1
            context.abort(grpc.StatusCode.UNAVAILABLE, "the replica is restarting")

    def _build(self) -> pb.Build:
        return pb.Build(build_id="b1", state=pb.BUILD_STATE_SUCCEEDED, n_mcq=300, coverage_status="ok",
                        files=[_entry(n, d) for n, d in self.listed.items()])

    def GetBuild(self, request, context):
        self._answer("GetBuild", request, context)
        return self._build()

    def CreateBuild(self, request, context):
        self._answer("CreateBuild", request, context)
        return self._build()

    def DownloadArtifacts(self, request, context):
        self._answer("DownloadArtifacts", request, context)
        script = self.streams.pop(0)
        for chunk in script:
            if chunk == "break":
                context.abort(grpc.StatusCode.UNAVAILABLE, "connection reset")
            yield chunk


def _client(address: str, sleeps: list[float] | None = None, **options) -> BuildsClient:
    retry = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=0.04, jitter=0.0)
    return BuildsClient(address, ClientOptions(**{"retry": retry, **options}),
                        sleep=sleeps.append if sleeps is not None else time.sleep)


def test_unavailable_twice_then_ok_is_retried_with_growing_backoff():
    fake = FakeBuildService(unavailable={"GetBuild": 2})
    sleeps: list[float] = []
    with serving([build_binding(fake)]) as address, _client(address, sleeps) as builds:
        assert builds.get("b1").n_mcq == 300
    assert [m for m, _ in fake.requests] == ["GetBuild"] * 3 and sleeps == [0.01, 0.02]


def test_unavailable_past_the_attempts_surfaces_with_its_code():
    fake = FakeBuildService(unavailable={"GetBuild": 5})
    with serving([build_binding(fake)]) as address, _client(address, []) as builds, \
            pytest.raises(UnavailableError) as error:
        builds.get("b1")
    assert error.value.code == grpc.StatusCode.UNAVAILABLE and "BuildService at 127.0.0.1:" in str(error.value)
    assert len(fake.requests) == 3


def test_create_is_retried_only_with_an_idempotency_key():
    fake = FakeBuildService(unavailable={"CreateBuild": 1})
    with serving([build_binding(fake)]) as address, _client(address, []) as builds:
        with pytest.raises(UnavailableError):
            builds.create(TEXT, request_id="")  # no key: a repeat might queue a second build
        assert len(fake.requests) == 1
        fake.unavailable["CreateBuild"] = 2
        builds.create(TEXT)  # a fresh key, the same on every attempt
    keys = [r.request_id for m, r in fake.requests[1:]]
    assert len(keys) == 3 and len(set(keys)) == 1 and keys[0].startswith("sdk-")


def test_a_deadline_that_passes_is_the_sdk_error():
    with serving([build_binding(FakeBuildService(delay_s=1.0))]) as address, \
            _client(address, [], deadline_s=0.2) as builds:
        started = time.monotonic()
        with pytest.raises(DeadlineExceededError) as error:
            builds.get("b1")
    assert error.value.code == grpc.StatusCode.DEADLINE_EXCEEDED and time.monotonic() - started < 0.9


def test_a_broken_download_resumes_with_the_files_still_missing(tmp_path):
    benchmark = _chunks("benchmark.jsonl", FILES["benchmark.jsonl"])
    assert len(benchmark) == 4
    # The first stream delivers config.json, half of benchmark.jsonl, then breaks: the half is dropped.
    fake = FakeBuildService(stream=[[*_chunks("config.json", FILES["config.json"]), *benchmark[:2], "break"],
                                    [*benchmark, *_chunks("empty.txt", b"")]])
    with serving([build_binding(fake)]) as address, _client(address, []) as builds:
        written = builds.download("b1", tmp_path / "out")
    names = [list(r.names) for m, r in fake.requests if m == "DownloadArtifacts"]
    assert names == [[], ["benchmark.jsonl", "empty.txt"]]
    assert {f.name: f.path.read_bytes() for f in written} == FILES


@pytest.mark.parametrize("name", ["../evil", "/etc/passwd", "sub/x.json", "sub\\x.json", "..", ".", "", "a\x00b",
                                  "line\nbreak"])
def test_a_file_name_that_is_not_plain_is_refused_and_nothing_is_written(tmp_path, name):
    data = b"owned\n"
    for fake in (FakeBuildService(files={name: data}),  # listed by GetBuild and sent
                 FakeBuildService(files={"benchmark.jsonl": data}, stream=[_chunks(name, data)])):  # only sent
        with serving([build_binding(fake)]) as address, _client(address, []) as builds, \
                pytest.raises(UnsafeArtifactName):
            builds.download("b1", tmp_path / "out")
        assert sorted(p.name for p in tmp_path.rglob("*")) == []  # not even a staging directory


def test_bytes_that_do_not_match_the_recorded_sha256_are_refused(tmp_path):
    data = FILES["config.json"]
    tampered = [pb.ArtifactChunk(name="config.json", offset=0, data=b'{"seed": 2}\n', last=True,
                                 sha256=hashlib.sha256(data).hexdigest(), size_bytes=len(data))]
    overlong = _chunks("config.json", data + b"x" * 5000)
    gap = _chunks("benchmark.jsonl", FILES["benchmark.jsonl"])[1:]
    for script, message in ((tampered, "does not match"), (overlong, "more than"), (gap, "offset 1000")):
        fake = FakeBuildService(files={"config.json": data, "benchmark.jsonl": FILES["benchmark.jsonl"]},
                                stream=[script])
        with serving([build_binding(fake)]) as address, _client(address, []) as builds, \
                pytest.raises(ArtifactIntegrityError, match=message):
            builds.download("b1", tmp_path / "out")
        assert not (tmp_path / "out").exists()


def test_backoff_grows_to_its_cap_within_the_jitter():
    policy = RetryPolicy(max_attempts=6, initial_backoff_s=0.1, max_backoff_s=0.5, multiplier=2.0, jitter=0.2,
                         random_source=random.Random(7))
    waits = list(policy.backoffs())
    assert len(waits) == 5
    for wait, base in zip(waits, [0.1, 0.2, 0.4, 0.5, 0.5], strict=True):
        assert base * 0.8 <= wait <= base * 1.2
    assert list(RetryPolicy(max_attempts=1).backoffs()) == []


def test_a_download_that_keeps_breaking_mid_file_runs_out_of_retries(tmp_path):
    half = _chunks("benchmark.jsonl", FILES["benchmark.jsonl"])[:2]
    fake = FakeBuildService(files={"benchmark.jsonl": FILES["benchmark.jsonl"]}, stream=[[*half, "break"]] * 3)
    with serving([build_binding(fake)]) as address, _client(address, []) as builds, \
            pytest.raises(UnavailableError):
        builds.download("b1", tmp_path / "out")
    assert [m for m, _ in fake.requests] == ["GetBuild"] + ["DownloadArtifacts"] * 3
    assert not (tmp_path / "out").exists()


class _StatusError(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """An RpcError that carries a status, as grpc's own errors do."""

    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "at its limit"

    def initial_metadata(self):  # type: ignore[no-untyped-def]
        return ()

    def trailing_metadata(self):  # type: ignore[no-untyped-def]
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> None:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback) -> bool:  # type: ignore[no-untyped-def]
        return False


def test_a_server_at_its_stream_limit_is_retried_later_but_bad_input_is_not() -> None:
    from scicustom.client.retry_policy import RetryPolicy, with_retries

    outcomes = [grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.RESOURCE_EXHAUSTED]
    waits: list[float] = []

    def call() -> str:
        if outcomes:
            raise _StatusError(outcomes.pop(0))
        return "ok"

    assert with_retries(call, RetryPolicy(jitter=0.0), idempotent=True, sleep=waits.append) == "ok"
    assert waits == [0.2, 0.4]
    with pytest.raises(grpc.RpcError):
        with_retries(lambda: (_ for _ in ()).throw(_StatusError(grpc.StatusCode.INVALID_ARGUMENT)),
                     RetryPolicy(), idempotent=True, sleep=waits.append)
    assert len(waits) == 2
