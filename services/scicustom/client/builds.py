"""BuildsClient: create, follow, cancel and download benchmark builds through BuildService.

The files come down the DownloadArtifacts stream, so a caller needs the service's address (and
whatever its auth hook sends), never object-store credentials.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from scicustom.app.build.output_writer import check_output_dir, write_atomically
from scicustom.app.build.request import requirement_argument
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.client.artifact_assembly import ArtifactAssembly
from scicustom.client.build_types import Build, BuildPage, BuildProgress, BuildStatus, DownloadedFile
from scicustom.client.connection import ClientOptions, ServiceClient
from scicustom.client.rpc_errors import DeadlineExceededError, WaitTimeout

DOWNLOAD_TIMEOUT_S = 600.0  # one DownloadArtifacts stream; a resumed stream gets a fresh one
REWATCH_S = 0.2


def new_request_id() -> str:
    """An idempotency key: with it, a retried CreateBuild names the build the first attempt created."""
    return f"sdk-{uuid.uuid4().hex}"


def build_request(requirement: str | Path, *, method: str = "", k1: int = 0, k2: int = 0, proxy_samples: int = 0,
                  seed: int = 0, relevance_quantile: float = 0.0, llm_judges: bool = False, min_items: int = 0,
                  since_build_id: str = "", standing_min_new_items: int = 0,
                  request_id: str = "") -> pb.CreateBuildRequest:
    """A CreateBuildRequest: `requirement` is a YAML file (a Path, or a str naming a .yaml/.yml or an
    existing file; read here) or free text. 0 / "" take the requirement's value or the service's default."""
    source = requirement_argument(str(requirement), "requirement")
    which = {"requirement_yaml": source.yaml} if source.yaml is not None else {"requirement_text": source.text}
    return pb.CreateBuildRequest(**which, method=method, k1=k1, k2=k2, proxy_samples=proxy_samples, seed=seed,
                                 relevance_quantile=relevance_quantile, llm_judges=llm_judges, min_items=min_items,
                                 since_build_id=since_build_id, standing_min_new_items=standing_min_new_items,
                                 request_id=request_id)


class BuildsClient(ServiceClient):
    """BuildService at `address` (host:port). Returns the dataclasses of `build_types`.

    Unary calls get `options.deadline_s` unless they name `timeout_s`; reads, cancel and a create
    with a request id are retried on UNAVAILABLE; watch and download resume after a broken stream.
    """

    SERVICE = "BuildService"

    def __init__(self, address: str, options: ClientOptions | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(address, options, sleep=sleep)
        self._stub = pb_grpc.BuildServiceStub(self.channel)  # type: ignore[no-untyped-call]

    # -- creating and reading -------------------------------------------------------------------
    def create(self, requirement: str | Path, *, method: str = "", k1: int = 0, k2: int = 0,
               proxy_samples: int = 0, seed: int = 0, relevance_quantile: float = 0.0, llm_judges: bool = False,
               min_items: int = 0, since_build_id: str = "", standing_min_new_items: int = 0,
               request_id: str | None = None, timeout_s: float | None = None) -> Build:
        """Queues a build (see `build_request` for the arguments). `request_id` None makes a fresh
        idempotency key, so the call is retried safely; "" sends none and the call is never retried."""
        request = build_request(requirement, method=method, k1=k1, k2=k2, proxy_samples=proxy_samples, seed=seed,
                                relevance_quantile=relevance_quantile, llm_judges=llm_judges, min_items=min_items,
                                since_build_id=since_build_id, standing_min_new_items=standing_min_new_items,
                                request_id=new_request_id() if request_id is None else request_id)
        return self.submit(request, timeout_s=timeout_s)

    def submit(self, request: pb.CreateBuildRequest, *, timeout_s: float | None = None) -> Build:
        """CreateBuild with a request as built by the caller; retried only when it has a request_id."""
        return Build.of(self._unary(self._stub.CreateBuild, request, idempotent=bool(request.request_id),
                                    timeout_s=timeout_s))

    def get(self, build_id: str, *, timeout_s: float | None = None) -> Build:
        return Build.of(self._unary(self._stub.GetBuild, pb.GetBuildRequest(build_id=build_id), idempotent=True,
                                    timeout_s=timeout_s))

    def list(self, page_size: int = 0, page_token: str = "", *, timeout_s: float | None = None) -> BuildPage:
        """One page, newest first; pass `next_page_token` back for the next (empty on the last page)."""
        response = self._unary(self._stub.ListBuilds, pb.ListBuildsRequest(page_size=page_size, page_token=page_token),
                               idempotent=True, timeout_s=timeout_s)
        return BuildPage(tuple(Build.of(b) for b in response.builds), response.next_page_token)

    def cancel(self, build_id: str, *, timeout_s: float | None = None) -> Build:
        """Asks a queued or running build to stop at its next stage; a finished build is unchanged."""
        return Build.of(self._unary(self._stub.CancelBuild, pb.CancelBuildRequest(build_id=build_id),
                                    idempotent=True, timeout_s=timeout_s))

    # -- following -------------------------------------------------------------------------------
    def watch(self, build_id: str, *, timeout_s: float | None = None) -> Iterator[BuildProgress]:
        """Each change of the build, ending after a terminal state; no deadline unless `timeout_s`
        (then DeadlineExceededError once it passes)."""
        ends = None if timeout_s is None else time.monotonic() + timeout_s

        def open_stream() -> Iterator[pb.BuildProgress]:
            remaining = None if ends is None else max(ends - time.monotonic(), 0.001)
            return self._stub.WatchBuild(pb.WatchBuildRequest(build_id=build_id), timeout=remaining)  # type: ignore[no-any-return]

        for message in self._stream(open_stream, resumable=True):
            yield BuildProgress.of(message)

    def wait(self, build_id: str, timeout_s: float | None = None) -> Build:
        """The build once it has succeeded, failed or been cancelled; WaitTimeout after `timeout_s`."""
        ends = None if timeout_s is None else time.monotonic() + timeout_s
        last: Build | None = None
        while True:
            remaining = None if ends is None else ends - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise WaitTimeout(f"build {build_id} did not finish within {timeout_s} s", last)
            try:
                for progress in self.watch(build_id, timeout_s=remaining):
                    last = progress.build
            except DeadlineExceededError:
                raise WaitTimeout(f"build {build_id} did not finish within {timeout_s} s", last) from None
            if last is not None and last.terminal:
                return last
            self._sleep(REWATCH_S)  # the stream ended early (the service shut down cleanly): watch again

    # -- downloading -----------------------------------------------------------------------------
    def fetch(self, build: Build | str, names: Sequence[str] = (), *,
              timeout_s: float | None = None) -> dict[str, bytes]:
        """The build's files (or `names`) in memory, each checked against the SHA-256 and size of
        GetBuild's Build.files. The service refuses a build that has not succeeded
        (FailedPreconditionError) and a name that is not one of its files (InvalidArgumentError)."""
        if isinstance(build, str) or build.status != BuildStatus.SUCCEEDED:  # a stale Build has no files yet
            build = self.get(build if isinstance(build, str) else build.build_id)
        recorded = {f.name: f for f in build.files}
        assembly = ArtifactAssembly({n: recorded[n] for n in names if n in recorded} if names else recorded)
        build_id, deadline = build.build_id, DOWNLOAD_TIMEOUT_S if timeout_s is None else timeout_s
        resumed = False

        def open_stream() -> Iterator[pb.ArtifactChunk]:
            nonlocal resumed
            assembly.restart()
            # The first stream asks for what the caller asked; a resumed one for what is still missing.
            wanted = assembly.missing() if resumed else list(names)
            resumed = True
            request = pb.DownloadArtifactsRequest(build_id=build_id, names=wanted)
            return self._stub.DownloadArtifacts(request, timeout=deadline)  # type: ignore[no-any-return]

        # Only a finished file is progress: a stream that keeps breaking mid-file runs out of retries.
        for chunk in self._stream(open_stream, resumable=True, progress=lambda chunk: chunk.last):
            assembly.add(chunk)
        return assembly.files()

    def download(self, build: Build | str, out: Path, *, names: Sequence[str] = (), force: bool = False,
                 timeout_s: float | None = None) -> tuple[DownloadedFile, ...]:
        """Writes the build's files (or `names`) into the directory `out` in one atomic rename, after
        every file was checked (nothing is written otherwise). `force` replaces an existing `out` that
        is empty or a previous build (its config.json names the scicustom version), nothing else."""
        out = Path(out)
        check_output_dir(out, force, "out")
        files = self.fetch(build, names, timeout_s=timeout_s)
        write_atomically(out, files)
        return tuple(DownloadedFile(name, out / name, hashlib.sha256(data).hexdigest(), len(data))
                     for name, data in files.items())
