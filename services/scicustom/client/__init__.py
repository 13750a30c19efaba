"""The SciCustom client SDK: typed clients of the platform's gRPC services (docs/sdk.md).

    from scicustom.client import BuildsClient, ClientOptions, RetryPolicy

    options = ClientOptions(deadline_s=30, retry=RetryPolicy(max_attempts=5),
                            metadata=lambda: [("authorization", f"Bearer {current_token()}")])
    with BuildsClient("builds.example.org:443", options) as builds:
        build = builds.create(Path("requirement.yaml"), k2=50)
        done = builds.wait(build.build_id, timeout_s=1800)
        if done.status is BuildStatus.SUCCEEDED:
            builds.download(done, Path("benchmark-out"))

Clients: BuildsClient (create, get, list, watch, wait, cancel, fetch/download through the
DownloadArtifacts stream, so no object-store credentials are needed), TaggerClient (tag texts),
ScorersClient (ScoreHypotheses, AuditInstructionFollowing, JudgeRecipes; protobuf messages in and
out), PapersClient (submit, get, list, watch, wait). Each is a context manager over one channel.

Every call has a deadline (ClientOptions.deadline_s, or the call's `timeout_s`); idempotent calls
are retried on UNAVAILABLE with exponential backoff and jitter (RetryPolicy); the `metadata` hook is
asked for fresh metadata on every call. Builds come back as the dataclasses of `build_types`,
tagging as TagResult, papers as PaperStatus. Failures raise ClientError subclasses: RpcCallError
(with `code` and `details`; InvalidArgumentError also names the `field`; UnauthenticatedError: no
or an unknown token), DownloadError, WaitTimeout. Without ClientOptions, a client takes its bearer
token and TLS files from SCICUSTOM_AUTH_TOKEN and SCICUSTOM_TLS_* (client/environment_options.py).
"""

from scicustom.client.build_types import (
    Build,
    BuildPage,
    BuildProgress,
    BuildStatus,
    DownloadedFile,
    OutputFile,
    StageStatus,
)
from scicustom.client.builds import BuildsClient, build_request, new_request_id
from scicustom.client.call_metadata import MetadataHook
from scicustom.client.connection import ClientOptions
from scicustom.client.papers import PapersClient
from scicustom.client.retry_policy import NO_RETRIES, RetryPolicy
from scicustom.client.rpc_errors import (
    ArtifactIntegrityError,
    ClientError,
    DeadlineExceededError,
    DownloadError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    RpcCallError,
    UnauthenticatedError,
    UnavailableError,
    UnsafeArtifactName,
    WaitTimeout,
)
from scicustom.client.scorers import ScorersClient
from scicustom.client.tagger import TaggedUnit, TaggerClient, TagResult

__all__ = [
    "NO_RETRIES", "ArtifactIntegrityError", "Build", "BuildPage", "BuildProgress", "BuildStatus", "BuildsClient",
    "ClientError", "ClientOptions", "DeadlineExceededError", "DownloadError", "DownloadedFile",
    "FailedPreconditionError", "InvalidArgumentError", "MetadataHook", "NotFoundError", "OutputFile",
    "PapersClient", "RetryPolicy", "RpcCallError", "ScorersClient", "StageStatus", "TagResult", "TaggedUnit",
    "TaggerClient", "UnauthenticatedError", "UnavailableError", "UnsafeArtifactName", "WaitTimeout",
    "build_request", "new_request_id",
]
