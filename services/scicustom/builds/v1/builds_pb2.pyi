import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BuildState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BUILD_STATE_UNSPECIFIED: _ClassVar[BuildState]
    BUILD_STATE_QUEUED: _ClassVar[BuildState]
    BUILD_STATE_RUNNING: _ClassVar[BuildState]
    BUILD_STATE_SUCCEEDED: _ClassVar[BuildState]
    BUILD_STATE_FAILED: _ClassVar[BuildState]
    BUILD_STATE_CANCELLED: _ClassVar[BuildState]
BUILD_STATE_UNSPECIFIED: BuildState
BUILD_STATE_QUEUED: BuildState
BUILD_STATE_RUNNING: BuildState
BUILD_STATE_SUCCEEDED: BuildState
BUILD_STATE_FAILED: BuildState
BUILD_STATE_CANCELLED: BuildState

class CreateBuildRequest(_message.Message):
    __slots__ = ("requirement_yaml", "requirement_text", "method", "k1", "k2", "proxy_samples", "seed", "relevance_quantile", "llm_judges", "request_id", "min_items", "since_build_id", "standing_min_new_items")
    REQUIREMENT_YAML_FIELD_NUMBER: _ClassVar[int]
    REQUIREMENT_TEXT_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    K1_FIELD_NUMBER: _ClassVar[int]
    K2_FIELD_NUMBER: _ClassVar[int]
    PROXY_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_QUANTILE_FIELD_NUMBER: _ClassVar[int]
    LLM_JUDGES_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MIN_ITEMS_FIELD_NUMBER: _ClassVar[int]
    SINCE_BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    STANDING_MIN_NEW_ITEMS_FIELD_NUMBER: _ClassVar[int]
    requirement_yaml: str
    requirement_text: str
    method: str
    k1: int
    k2: int
    proxy_samples: int
    seed: int
    relevance_quantile: float
    llm_judges: bool
    request_id: str
    min_items: int
    since_build_id: str
    standing_min_new_items: int
    def __init__(self, requirement_yaml: _Optional[str] = ..., requirement_text: _Optional[str] = ..., method: _Optional[str] = ..., k1: _Optional[int] = ..., k2: _Optional[int] = ..., proxy_samples: _Optional[int] = ..., seed: _Optional[int] = ..., relevance_quantile: _Optional[float] = ..., llm_judges: _Optional[bool] = ..., request_id: _Optional[str] = ..., min_items: _Optional[int] = ..., since_build_id: _Optional[str] = ..., standing_min_new_items: _Optional[int] = ...) -> None: ...

class GetBuildRequest(_message.Message):
    __slots__ = ("build_id",)
    BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    build_id: str
    def __init__(self, build_id: _Optional[str] = ...) -> None: ...

class ListBuildsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListBuildsResponse(_message.Message):
    __slots__ = ("builds", "next_page_token")
    BUILDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    builds: _containers.RepeatedCompositeFieldContainer[Build]
    next_page_token: str
    def __init__(self, builds: _Optional[_Iterable[_Union[Build, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchBuildRequest(_message.Message):
    __slots__ = ("build_id",)
    BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    build_id: str
    def __init__(self, build_id: _Optional[str] = ...) -> None: ...

class CancelBuildRequest(_message.Message):
    __slots__ = ("build_id",)
    BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    build_id: str
    def __init__(self, build_id: _Optional[str] = ...) -> None: ...

class StageStatus(_message.Message):
    __slots__ = ("stage", "done", "seconds")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    stage: str
    done: bool
    seconds: float
    def __init__(self, stage: _Optional[str] = ..., done: _Optional[bool] = ..., seconds: _Optional[float] = ...) -> None: ...

class OutputFile(_message.Message):
    __slots__ = ("name", "key", "sha256", "size_bytes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    name: str
    key: str
    sha256: str
    size_bytes: int
    def __init__(self, name: _Optional[str] = ..., key: _Optional[str] = ..., sha256: _Optional[str] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class Build(_message.Message):
    __slots__ = ("build_id", "state", "requirement_name", "method", "created", "stages", "error", "error_field", "files", "n_mcq", "coverage_status", "thin_units", "coverage_message", "since_build_id", "standing_id")
    BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REQUIREMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    STAGES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    N_MCQ_FIELD_NUMBER: _ClassVar[int]
    COVERAGE_STATUS_FIELD_NUMBER: _ClassVar[int]
    THIN_UNITS_FIELD_NUMBER: _ClassVar[int]
    COVERAGE_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SINCE_BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    STANDING_ID_FIELD_NUMBER: _ClassVar[int]
    build_id: str
    state: BuildState
    requirement_name: str
    method: str
    created: _timestamp_pb2.Timestamp
    stages: _containers.RepeatedCompositeFieldContainer[StageStatus]
    error: str
    error_field: str
    files: _containers.RepeatedCompositeFieldContainer[OutputFile]
    n_mcq: int
    coverage_status: str
    thin_units: _containers.RepeatedScalarFieldContainer[str]
    coverage_message: str
    since_build_id: str
    standing_id: str
    def __init__(self, build_id: _Optional[str] = ..., state: _Optional[_Union[BuildState, str]] = ..., requirement_name: _Optional[str] = ..., method: _Optional[str] = ..., created: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., stages: _Optional[_Iterable[_Union[StageStatus, _Mapping]]] = ..., error: _Optional[str] = ..., error_field: _Optional[str] = ..., files: _Optional[_Iterable[_Union[OutputFile, _Mapping]]] = ..., n_mcq: _Optional[int] = ..., coverage_status: _Optional[str] = ..., thin_units: _Optional[_Iterable[str]] = ..., coverage_message: _Optional[str] = ..., since_build_id: _Optional[str] = ..., standing_id: _Optional[str] = ...) -> None: ...

class BuildProgress(_message.Message):
    __slots__ = ("build", "current_stage", "stages_done", "stages_total")
    BUILD_FIELD_NUMBER: _ClassVar[int]
    CURRENT_STAGE_FIELD_NUMBER: _ClassVar[int]
    STAGES_DONE_FIELD_NUMBER: _ClassVar[int]
    STAGES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    build: Build
    current_stage: str
    stages_done: int
    stages_total: int
    def __init__(self, build: _Optional[_Union[Build, _Mapping]] = ..., current_stage: _Optional[str] = ..., stages_done: _Optional[int] = ..., stages_total: _Optional[int] = ...) -> None: ...

class DownloadArtifactsRequest(_message.Message):
    __slots__ = ("build_id", "names")
    BUILD_ID_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    build_id: str
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, build_id: _Optional[str] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class ArtifactChunk(_message.Message):
    __slots__ = ("name", "offset", "data", "last", "sha256", "size_bytes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    name: str
    offset: int
    data: bytes
    last: bool
    sha256: str
    size_bytes: int
    def __init__(self, name: _Optional[str] = ..., offset: _Optional[int] = ..., data: _Optional[bytes] = ..., last: _Optional[bool] = ..., sha256: _Optional[str] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class RedriveDeadLettersRequest(_message.Message):
    __slots__ = ("stage", "limit", "wait_s")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    WAIT_S_FIELD_NUMBER: _ClassVar[int]
    stage: str
    limit: int
    wait_s: float
    def __init__(self, stage: _Optional[str] = ..., limit: _Optional[int] = ..., wait_s: _Optional[float] = ...) -> None: ...

class DeadLetterSummary(_message.Message):
    __slots__ = ("stage", "topic", "partition", "offset", "attempts", "error", "redriven")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REDRIVEN_FIELD_NUMBER: _ClassVar[int]
    stage: str
    topic: str
    partition: int
    offset: int
    attempts: int
    error: str
    redriven: bool
    def __init__(self, stage: _Optional[str] = ..., topic: _Optional[str] = ..., partition: _Optional[int] = ..., offset: _Optional[int] = ..., attempts: _Optional[int] = ..., error: _Optional[str] = ..., redriven: _Optional[bool] = ...) -> None: ...

class RedriveDeadLettersResponse(_message.Message):
    __slots__ = ("redriven", "skipped")
    REDRIVEN_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    redriven: _containers.RepeatedCompositeFieldContainer[DeadLetterSummary]
    skipped: _containers.RepeatedCompositeFieldContainer[DeadLetterSummary]
    def __init__(self, redriven: _Optional[_Iterable[_Union[DeadLetterSummary, _Mapping]]] = ..., skipped: _Optional[_Iterable[_Union[DeadLetterSummary, _Mapping]]] = ...) -> None: ...
