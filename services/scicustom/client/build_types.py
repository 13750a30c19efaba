"""What BuildsClient returns: frozen dataclasses converted from the BuildService messages, so a
caller gets typed fields (a `BuildStatus`, a `datetime`, tuples) instead of protobuf objects."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from scicustom.builds.v1 import builds_pb2 as pb


class BuildStatus(StrEnum):
    UNSPECIFIED = "unspecified"
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @classmethod
    def of(cls, state: int) -> BuildStatus:
        return cls(pb.BuildState.Name(state).removeprefix("BUILD_STATE_").lower())

    @property
    def terminal(self) -> bool:
        return self in (BuildStatus.SUCCEEDED, BuildStatus.FAILED, BuildStatus.CANCELLED)


@dataclass(frozen=True)
class OutputFile:
    """A file a succeeded build wrote: download it with `BuildsClient.download`."""

    name: str
    sha256: str
    size_bytes: int


@dataclass(frozen=True)
class StageStatus:
    stage: str        # vote, candidates, cutoff, select, generate, complete
    done: bool
    seconds: float    # the stage's wall time on its worker


@dataclass(frozen=True)
class Build:
    build_id: str
    status: BuildStatus
    requirement_name: str
    method: str
    created: datetime
    stages: tuple[StageStatus, ...]
    error: str                  # failed / cancelled: the reason, one line
    error_field: str            # the request field at fault, when known
    files: tuple[OutputFile, ...]  # succeeded only
    n_mcq: int
    coverage_status: str        # succeeded only: "ok" or "thin" (fewer relevant MCQs than min_items)
    thin_units: tuple[str, ...]
    coverage_message: str
    since_build_id: str
    standing_id: str

    @property
    def terminal(self) -> bool:
        return self.status.terminal

    @property
    def thin(self) -> bool:
        return self.coverage_status == "thin"

    @classmethod
    def of(cls, message: pb.Build) -> Build:
        return cls(
            build_id=message.build_id, status=BuildStatus.of(message.state),
            requirement_name=message.requirement_name, method=message.method,
            created=message.created.ToDatetime(tzinfo=UTC) if message.HasField("created")
            else datetime.fromtimestamp(0, UTC),
            stages=tuple(StageStatus(s.stage, s.done, s.seconds) for s in message.stages),
            error=message.error, error_field=message.error_field,
            files=tuple(OutputFile(f.name, f.sha256, f.size_bytes) for f in message.files),
            n_mcq=message.n_mcq, coverage_status=message.coverage_status, thin_units=tuple(message.thin_units),
            coverage_message=message.coverage_message, since_build_id=message.since_build_id,
            standing_id=message.standing_id)


@dataclass(frozen=True)
class BuildProgress:
    build: Build
    current_stage: str      # the first stage not done yet; empty once terminal
    stages_done: int
    stages_total: int

    @classmethod
    def of(cls, message: pb.BuildProgress) -> BuildProgress:
        return cls(Build.of(message.build), message.current_stage, message.stages_done, message.stages_total)


@dataclass(frozen=True)
class BuildPage:
    builds: tuple[Build, ...]
    next_page_token: str    # empty on the last page


@dataclass(frozen=True)
class DownloadedFile:
    name: str
    path: Path
    sha256: str
    size_bytes: int
