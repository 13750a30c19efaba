from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BatchState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BATCH_STATE_UNSPECIFIED: _ClassVar[BatchState]
    BATCH_STATE_IMPORTED: _ClassVar[BatchState]
    BATCH_STATE_TAGGED: _ClassVar[BatchState]
    BATCH_STATE_INDEXED: _ClassVar[BatchState]
    BATCH_STATE_FAILED: _ClassVar[BatchState]
BATCH_STATE_UNSPECIFIED: BatchState
BATCH_STATE_IMPORTED: BatchState
BATCH_STATE_TAGGED: BatchState
BATCH_STATE_INDEXED: BatchState
BATCH_STATE_FAILED: BatchState

class PaperItem(_message.Message):
    __slots__ = ("question", "answer", "options", "answer_index")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_INDEX_FIELD_NUMBER: _ClassVar[int]
    question: str
    answer: str
    options: _containers.RepeatedScalarFieldContainer[str]
    answer_index: int
    def __init__(self, question: _Optional[str] = ..., answer: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., answer_index: _Optional[int] = ...) -> None: ...

class SubmitPaperRequest(_message.Message):
    __slots__ = ("paper_id", "title", "licence", "items")
    PAPER_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    LICENCE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    paper_id: str
    title: str
    licence: str
    items: _containers.RepeatedCompositeFieldContainer[PaperItem]
    def __init__(self, paper_id: _Optional[str] = ..., title: _Optional[str] = ..., licence: _Optional[str] = ..., items: _Optional[_Iterable[_Union[PaperItem, _Mapping]]] = ...) -> None: ...

class SubmitPaperResponse(_message.Message):
    __slots__ = ("batch_id", "item_ids", "count")
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ITEM_IDS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    batch_id: str
    item_ids: _containers.RepeatedScalarFieldContainer[str]
    count: int
    def __init__(self, batch_id: _Optional[str] = ..., item_ids: _Optional[_Iterable[str]] = ..., count: _Optional[int] = ...) -> None: ...

class ImportCorpusRequest(_message.Message):
    __slots__ = ("sources", "limit_per_source")
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_PER_SOURCE_FIELD_NUMBER: _ClassVar[int]
    sources: _containers.RepeatedScalarFieldContainer[str]
    limit_per_source: int
    def __init__(self, sources: _Optional[_Iterable[str]] = ..., limit_per_source: _Optional[int] = ...) -> None: ...

class ImportedSource(_message.Message):
    __slots__ = ("source", "read", "imported", "duplicates", "skipped")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    source: str
    read: int
    imported: int
    duplicates: int
    skipped: int
    def __init__(self, source: _Optional[str] = ..., read: _Optional[int] = ..., imported: _Optional[int] = ..., duplicates: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class BatchSummary(_message.Message):
    __slots__ = ("batch_id", "source", "count")
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    batch_id: str
    source: str
    count: int
    def __init__(self, batch_id: _Optional[str] = ..., source: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class ImportCorpusResponse(_message.Message):
    __slots__ = ("batches", "sources")
    BATCHES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    batches: _containers.RepeatedCompositeFieldContainer[BatchSummary]
    sources: _containers.RepeatedCompositeFieldContainer[ImportedSource]
    def __init__(self, batches: _Optional[_Iterable[_Union[BatchSummary, _Mapping]]] = ..., sources: _Optional[_Iterable[_Union[ImportedSource, _Mapping]]] = ...) -> None: ...

class GetBatchRequest(_message.Message):
    __slots__ = ("batch_id",)
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    batch_id: str
    def __init__(self, batch_id: _Optional[str] = ...) -> None: ...

class SkippedRecords(_message.Message):
    __slots__ = ("stage", "reason", "count")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    stage: str
    reason: str
    count: int
    def __init__(self, stage: _Optional[str] = ..., reason: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class Batch(_message.Message):
    __slots__ = ("batch_id", "state", "source", "origin", "count", "tagger_version", "tagged", "indexed", "skipped", "index", "error", "failed_stage")
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    TAGGER_VERSION_FIELD_NUMBER: _ClassVar[int]
    TAGGED_FIELD_NUMBER: _ClassVar[int]
    INDEXED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    FAILED_STAGE_FIELD_NUMBER: _ClassVar[int]
    batch_id: str
    state: BatchState
    source: str
    origin: str
    count: int
    tagger_version: str
    tagged: int
    indexed: int
    skipped: _containers.RepeatedCompositeFieldContainer[SkippedRecords]
    index: str
    error: str
    failed_stage: str
    def __init__(self, batch_id: _Optional[str] = ..., state: _Optional[_Union[BatchState, str]] = ..., source: _Optional[str] = ..., origin: _Optional[str] = ..., count: _Optional[int] = ..., tagger_version: _Optional[str] = ..., tagged: _Optional[int] = ..., indexed: _Optional[int] = ..., skipped: _Optional[_Iterable[_Union[SkippedRecords, _Mapping]]] = ..., index: _Optional[str] = ..., error: _Optional[str] = ..., failed_stage: _Optional[str] = ...) -> None: ...
