import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ArtifactRef(_message.Message):
    __slots__ = ("key", "sha256", "size_bytes")
    KEY_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    key: str
    sha256: str
    size_bytes: int
    def __init__(self, key: _Optional[str] = ..., sha256: _Optional[str] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class Envelope(_message.Message):
    __slots__ = ("event_id", "type", "build_id", "batch_id", "time", "schema_version", "tenant", "build_requested", "stage_completed", "build_completed", "build_failed", "items_batch", "paper", "build_updated")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    BUILD_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    STAGE_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    BUILD_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    BUILD_FAILED_FIELD_NUMBER: _ClassVar[int]
    ITEMS_BATCH_FIELD_NUMBER: _ClassVar[int]
    PAPER_FIELD_NUMBER: _ClassVar[int]
    BUILD_UPDATED_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    type: str
    build_id: str
    batch_id: str
    time: _timestamp_pb2.Timestamp
    schema_version: int
    tenant: str
    build_requested: BuildRequested
    stage_completed: StageCompleted
    build_completed: BuildCompleted
    build_failed: BuildFailed
    items_batch: ItemsBatch
    paper: PaperEvent
    build_updated: BuildUpdated
    def __init__(self, event_id: _Optional[str] = ..., type: _Optional[str] = ..., build_id: _Optional[str] = ..., batch_id: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., schema_version: _Optional[int] = ..., tenant: _Optional[str] = ..., build_requested: _Optional[_Union[BuildRequested, _Mapping]] = ..., stage_completed: _Optional[_Union[StageCompleted, _Mapping]] = ..., build_completed: _Optional[_Union[BuildCompleted, _Mapping]] = ..., build_failed: _Optional[_Union[BuildFailed, _Mapping]] = ..., items_batch: _Optional[_Union[ItemsBatch, _Mapping]] = ..., paper: _Optional[_Union[PaperEvent, _Mapping]] = ..., build_updated: _Optional[_Union[BuildUpdated, _Mapping]] = ...) -> None: ...

class BuildRequested(_message.Message):
    __slots__ = ("spec",)
    SPEC_FIELD_NUMBER: _ClassVar[int]
    spec: ArtifactRef
    def __init__(self, spec: _Optional[_Union[ArtifactRef, _Mapping]] = ...) -> None: ...

class StageCompleted(_message.Message):
    __slots__ = ("stage", "artifact", "seconds")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    stage: str
    artifact: ArtifactRef
    seconds: float
    def __init__(self, stage: _Optional[str] = ..., artifact: _Optional[_Union[ArtifactRef, _Mapping]] = ..., seconds: _Optional[float] = ...) -> None: ...

class BuildCompleted(_message.Message):
    __slots__ = ("manifest", "n_mcq")
    MANIFEST_FIELD_NUMBER: _ClassVar[int]
    N_MCQ_FIELD_NUMBER: _ClassVar[int]
    manifest: ArtifactRef
    n_mcq: int
    def __init__(self, manifest: _Optional[_Union[ArtifactRef, _Mapping]] = ..., n_mcq: _Optional[int] = ...) -> None: ...

class BuildUpdated(_message.Message):
    __slots__ = ("standing_id", "previous_build_id", "diff", "added", "removed", "n_mcq")
    STANDING_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    N_MCQ_FIELD_NUMBER: _ClassVar[int]
    standing_id: str
    previous_build_id: str
    diff: ArtifactRef
    added: int
    removed: int
    n_mcq: int
    def __init__(self, standing_id: _Optional[str] = ..., previous_build_id: _Optional[str] = ..., diff: _Optional[_Union[ArtifactRef, _Mapping]] = ..., added: _Optional[int] = ..., removed: _Optional[int] = ..., n_mcq: _Optional[int] = ...) -> None: ...

class BuildFailed(_message.Message):
    __slots__ = ("stage", "code", "field", "reason")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    stage: str
    code: str
    field: str
    reason: str
    def __init__(self, stage: _Optional[str] = ..., code: _Optional[str] = ..., field: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ItemsBatch(_message.Message):
    __slots__ = ("items", "count", "source", "tagger_version")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGGER_VERSION_FIELD_NUMBER: _ClassVar[int]
    items: ArtifactRef
    count: int
    source: str
    tagger_version: str
    def __init__(self, items: _Optional[_Union[ArtifactRef, _Mapping]] = ..., count: _Optional[int] = ..., source: _Optional[str] = ..., tagger_version: _Optional[str] = ...) -> None: ...

class PaperEvent(_message.Message):
    __slots__ = ("artifact", "file_name", "extractor", "status", "instances", "rejected", "superseded")
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    EXTRACTOR_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    artifact: ArtifactRef
    file_name: str
    extractor: str
    status: str
    instances: int
    rejected: int
    superseded: str
    def __init__(self, artifact: _Optional[_Union[ArtifactRef, _Mapping]] = ..., file_name: _Optional[str] = ..., extractor: _Optional[str] = ..., status: _Optional[str] = ..., instances: _Optional[int] = ..., rejected: _Optional[int] = ..., superseded: _Optional[str] = ...) -> None: ...

class DeadLetter(_message.Message):
    __slots__ = ("stage", "topic", "partition", "offset", "value", "headers", "error", "attempts")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STAGE_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    stage: str
    topic: str
    partition: int
    offset: int
    value: bytes
    headers: _containers.ScalarMap[str, str]
    error: str
    attempts: int
    def __init__(self, stage: _Optional[str] = ..., topic: _Optional[str] = ..., partition: _Optional[int] = ..., offset: _Optional[int] = ..., value: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., error: _Optional[str] = ..., attempts: _Optional[int] = ...) -> None: ...
