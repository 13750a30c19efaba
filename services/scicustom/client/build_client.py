"""`scicustom --profile cluster build` and `scicustom remote build`: the same build through
BuildService, Kafka and the stage workers, driven by the SDK's BuildsClient. The files come down
the DownloadArtifacts stream (the service reads the object store; this side needs no storage
credentials), are checked against their hashes and written atomically, byte for byte what the
workers wrote."""

from __future__ import annotations

import sys
from pathlib import Path

from scicustom.app.build.output_writer import check_output_dir, write_atomically
from scicustom.app.build.request import BuildRequest
from scicustom.app.build.since import previous_build_dir, with_diff
from scicustom.bootstrap import Context
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.client.build_types import Build, BuildStatus
from scicustom.client.builds import BuildsClient, new_request_id
from scicustom.client.environment_options import options_from_settings
from scicustom.core.errors import InvalidInput

CREATE_TIMEOUT_S = 60.0
EXIT_BUILD_FAILED = 1
EXIT_THIN_COVERAGE = 3  # the same code as the embedded `scicustom build` (commands/build.py)


def create_request(request: BuildRequest) -> pb.CreateBuildRequest:
    """The validated request as BuildService takes it (it validates again, with the same code)."""
    source = ({"requirement_yaml": request.source.yaml} if request.source.yaml is not None
              else {"requirement_text": request.source.text})
    params = request.params
    return pb.CreateBuildRequest(**source, method=params.method, k1=params.k1, k2=params.k2,
                                 proxy_samples=params.proxy_samples, seed=params.seed,
                                 relevance_quantile=request.jury.relevance_quantile,
                                 llm_judges=request.jury.llm_judges, min_items=params.min_items)


def builds_client(ctx: Context) -> BuildsClient:
    """BuildService at SCICUSTOM_BUILD_SERVICE_ADDRESS, with the configured message limit, bearer
    token (SCICUSTOM_AUTH_TOKEN) and TLS files (SCICUSTOM_TLS_*)."""
    return BuildsClient(ctx.settings.build_service_address, options_from_settings(ctx.settings))


def follow(client: BuildsClient, build_id: str) -> Build:
    """Watches the build to its end, one line per stage on stderr."""
    build = None
    for progress in client.watch(build_id):
        build = progress.build
        if progress.current_stage:
            print(f"  {progress.stages_done}/{progress.stages_total} stages done; now {progress.current_stage}",
                  file=sys.stderr)
    return build if build is not None and build.terminal else client.wait(build_id)


def refused(build: Build) -> int:
    """The exit of a build that did not succeed: bad input names its field (exit 2), else exit 1."""
    if build.error_field:
        raise InvalidInput(build.error_field, build.error)
    print(f"scicustom: error: build {build.build_id} {build.status}: {build.error}", file=sys.stderr)
    return EXIT_BUILD_FAILED


def report(build: Build, out: Path, names: list[str]) -> int:
    stages = "  ".join(f"{s.stage} {s.seconds:.2f}" for s in build.stages)
    print(f"wrote {out}/ ({', '.join(names)})")
    print(f"build {build.build_id} succeeded: {build.n_mcq} MCQs\ntimings (s)  {stages}")
    if build.thin:
        print(f"scicustom build: {build.coverage_message} (exit {EXIT_THIN_COVERAGE})", file=sys.stderr)
        return EXIT_THIN_COVERAGE
    return 0


def run_remote_build(ctx: Context, request: BuildRequest, out: Path, force: bool, since: Path | None = None) -> int:
    """`since`: a previous build's directory here; the fetched files gain its `diff.json`."""
    from scicustom.telemetry.tracing_setup import configure_tracing, shutdown_tracing, tracer

    check_output_dir(out, force)  # before the build, so a refused --out or --since costs nothing
    previous = previous_build_dir(since) if since is not None else None
    configure_tracing("scicustom-cli")
    message = create_request(request)
    message.request_id = new_request_id()  # a retried CreateBuild names the same build
    try:
        with builds_client(ctx) as client, tracer("scicustom.cli").start_as_current_span("cli build"):
            build = client.submit(message, timeout_s=CREATE_TIMEOUT_S)
            print(f"build {build.build_id} queued at {client.address}", file=sys.stderr)
            build = follow(client, build.build_id)
            if build.status != BuildStatus.SUCCEEDED:
                return refused(build)
            fetched = client.fetch(build)
    finally:
        shutdown_tracing()
    # The build files are UTF-8 text; diff.json is rendered from them like on the embedded profile.
    files = with_diff({name: data.decode("utf-8") for name, data in fetched.items()}, previous, str(since))
    write_atomically(out, files)
    return report(build, out, list(files))
