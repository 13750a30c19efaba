"""`scicustom --profile cluster build`: the same build through BuildService, Kafka and the stage
workers; the files are fetched from the object store, verified against their hashes and written
atomically, byte for byte what the workers wrote."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import grpc

from scicustom.app.build.output_writer import check_output_dir, write_atomically
from scicustom.app.build.request import BuildRequest
from scicustom.app.build.since import previous_build_dir, with_diff
from scicustom.bootstrap import Context
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.client.rpc_errors import call_error
from scicustom.core.errors import InvalidInput, PreconditionFailed

CREATE_TIMEOUT_S = 60.0
EXIT_BUILD_FAILED = 1


def create_request(request: BuildRequest) -> pb.CreateBuildRequest:
    """The validated request as BuildService takes it (it validates again, with the same code)."""
    source = ({"requirement_yaml": request.source.yaml} if request.source.yaml is not None
              else {"requirement_text": request.source.text})
    params = request.params
    return pb.CreateBuildRequest(**source, method=params.method, k1=params.k1, k2=params.k2,
                                 proxy_samples=params.proxy_samples, seed=params.seed,
                                 relevance_quantile=request.jury.relevance_quantile,
                                 llm_judges=request.jury.llm_judges, min_items=params.min_items)


def fetch_files(ctx: Context, build: pb.Build) -> dict[str, str]:
    files = {}
    for entry in build.files:
        data = ctx.store.get_bytes(entry.key)
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise PreconditionFailed(f"{entry.key} does not match its sha256; the store changed under the build")
        files[entry.name] = data.decode("utf-8")
    return files


EXIT_THIN_COVERAGE = 3  # the same code as the embedded `scicustom build` (commands/build.py)


def run_remote_build(ctx: Context, request: BuildRequest, out: Path, force: bool, since: Path | None = None) -> int:
    """`since`: a previous build's directory here; the fetched files gain its `diff.json`."""
    from scicustom.telemetry.grpc_tracing import client_interceptor
    from scicustom.telemetry.tracing_setup import configure_tracing, shutdown_tracing, tracer

    check_output_dir(out, force)  # before the build, so a refused --out or --since costs nothing
    previous = previous_build_dir(since) if since is not None else None
    configure_tracing("scicustom-cli")
    address = ctx.settings.build_service_address
    limit = ctx.settings.grpc_max_message_bytes
    channel = grpc.intercept_channel(
        grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", limit),
                                                ("grpc.max_send_message_length", limit)]),
        client_interceptor())
    stub = pb_grpc.BuildServiceStub(channel)
    try:
        with tracer("scicustom.cli").start_as_current_span("cli build"):
            try:
                build = stub.CreateBuild(create_request(request), timeout=CREATE_TIMEOUT_S)
                print(f"build {build.build_id} queued at {address}", file=sys.stderr)
                for progress in stub.WatchBuild(pb.WatchBuildRequest(build_id=build.build_id)):
                    build = progress.build
                    if progress.current_stage:
                        print(f"  {progress.stages_done}/{progress.stages_total} stages done; "
                              f"now {progress.current_stage}", file=sys.stderr)
            except grpc.RpcError as exc:
                raise call_error(exc, "BuildService", address) from None
    finally:
        channel.close()
        shutdown_tracing()
    if build.state != pb.BUILD_STATE_SUCCEEDED:
        state = pb.BuildState.Name(build.state).removeprefix("BUILD_STATE_").lower()
        if build.error_field:
            raise InvalidInput(build.error_field, build.error)
        print(f"scicustom: error: build {build.build_id} {state}: {build.error}", file=sys.stderr)
        return EXIT_BUILD_FAILED
    files = fetch_files(ctx, build)
    files = with_diff(files, previous, str(since))
    write_atomically(out, files)
    stages = "  ".join(f"{s.stage} {s.seconds:.2f}" for s in build.stages)
    print(f"wrote {out}/ ({', '.join(files)})")
    print(f"build {build.build_id} succeeded: {build.n_mcq} MCQs\ntimings (s)  {stages}")
    if build.coverage_status == "thin":
        print(f"scicustom build: {build.coverage_message} (exit {EXIT_THIN_COVERAGE})", file=sys.stderr)
        return EXIT_THIN_COVERAGE
    return 0
