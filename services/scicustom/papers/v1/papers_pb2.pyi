from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PaperState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAPER_STATE_UNSPECIFIED: _ClassVar[PaperState]
    PAPER_STATE_SUBMITTED: _ClassVar[PaperState]
    PAPER_STATE_PARSED: _ClassVar[PaperState]
    PAPER_STATE_EXTRACTED: _ClassVar[PaperState]
    PAPER_STATE_INDEXED: _ClassVar[PaperState]
    PAPER_STATE_FAILED: _ClassVar[PaperState]
    PAPER_STATE_SUPERSEDED: _ClassVar[PaperState]
PAPER_STATE_UNSPECIFIED: PaperState
PAPER_STATE_SUBMITTED: PaperState
PAPER_STATE_PARSED: PaperState
PAPER_STATE_EXTRACTED: PaperState
PAPER_STATE_INDEXED: PaperState
PAPER_STATE_FAILED: PaperState
PAPER_STATE_SUPERSEDED: PaperState

class SubmitPaperChunk(_message.Message):
    __slots__ = ("file_name", "object_key", "size_bytes", "data")
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    OBJECT_KEY_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    file_name: str
    object_key: str
    size_bytes: int
    data: bytes
    def __init__(self, file_name: _Optional[str] = ..., object_key: _Optional[str] = ..., size_bytes: _Optional[int] = ..., data: _Optional[bytes] = ...) -> None: ...

class GetPaperRequest(_message.Message):
    __slots__ = ("paper_id",)
    PAPER_ID_FIELD_NUMBER: _ClassVar[int]
    paper_id: str
    def __init__(self, paper_id: _Optional[str] = ...) -> None: ...

class ListPapersRequest(_message.Message):
    __slots__ = ("state", "limit")
    STATE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    state: PaperState
    limit: int
    def __init__(self, state: _Optional[_Union[PaperState, str]] = ..., limit: _Optional[int] = ...) -> None: ...

class ListPapersResponse(_message.Message):
    __slots__ = ("papers",)
    PAPERS_FIELD_NUMBER: _ClassVar[int]
    papers: _containers.RepeatedCompositeFieldContainer[Paper]
    def __init__(self, papers: _Optional[_Iterable[_Union[Paper, _Mapping]]] = ...) -> None: ...

class InstanceCount(_message.Message):
    __slots__ = ("kind", "count")
    KIND_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    kind: str
    count: int
    def __init__(self, kind: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class ExtractorStatus(_message.Message):
    __slots__ = ("extractor", "status", "rejected")
    EXTRACTOR_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    extractor: str
    status: str
    rejected: int
    def __init__(self, extractor: _Optional[str] = ..., status: _Optional[str] = ..., rejected: _Optional[int] = ...) -> None: ...

class Paper(_message.Message):
    __slots__ = ("paper_id", "file_name", "state", "reason", "failed_stage", "title", "doi", "pmid", "format", "size_bytes", "sha256", "superseded_by", "duplicate", "instances", "extractors", "batch_ids")
    PAPER_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAILED_STAGE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DOI_FIELD_NUMBER: _ClassVar[int]
    PMID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_BY_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_FIELD_NUMBER: _ClassVar[int]
    EXTRACTORS_FIELD_NUMBER: _ClassVar[int]
    BATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    paper_id: str
    file_name: str
    state: PaperState
    reason: str
    failed_stage: str
    title: str
    doi: str
    pmid: str
    format: str
    size_bytes: int
    sha256: str
    superseded_by: str
    duplicate: bool
    instances: _containers.RepeatedCompositeFieldContainer[InstanceCount]
    extractors: _containers.RepeatedCompositeFieldContainer[ExtractorStatus]
    batch_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, paper_id: _Optional[str] = ..., file_name: _Optional[str] = ..., state: _Optional[_Union[PaperState, str]] = ..., reason: _Optional[str] = ..., failed_stage: _Optional[str] = ..., title: _Optional[str] = ..., doi: _Optional[str] = ..., pmid: _Optional[str] = ..., format: _Optional[str] = ..., size_bytes: _Optional[int] = ..., sha256: _Optional[str] = ..., superseded_by: _Optional[str] = ..., duplicate: _Optional[bool] = ..., instances: _Optional[_Iterable[_Union[InstanceCount, _Mapping]]] = ..., extractors: _Optional[_Iterable[_Union[ExtractorStatus, _Mapping]]] = ..., batch_ids: _Optional[_Iterable[str]] = ...) -> None: ...
