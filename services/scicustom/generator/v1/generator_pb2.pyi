from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InlineItem(_message.Message):
    __slots__ = ("id", "question", "options", "answer_index", "answer", "source", "licence", "unit_ids")
    ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_INDEX_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    LICENCE_FIELD_NUMBER: _ClassVar[int]
    UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    question: str
    options: _containers.RepeatedScalarFieldContainer[str]
    answer_index: int
    answer: str
    source: str
    licence: str
    unit_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., question: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., answer_index: _Optional[int] = ..., answer: _Optional[str] = ..., source: _Optional[str] = ..., licence: _Optional[str] = ..., unit_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ProvenanceInput(_message.Message):
    __slots__ = ("unit_ids", "candidate_rank")
    UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_RANK_FIELD_NUMBER: _ClassVar[int]
    unit_ids: _containers.RepeatedScalarFieldContainer[str]
    candidate_rank: int
    def __init__(self, unit_ids: _Optional[_Iterable[str]] = ..., candidate_rank: _Optional[int] = ...) -> None: ...

class ItemToConvert(_message.Message):
    __slots__ = ("item_id", "inline", "provenance")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    INLINE_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    inline: InlineItem
    provenance: ProvenanceInput
    def __init__(self, item_id: _Optional[str] = ..., inline: _Optional[_Union[InlineItem, _Mapping]] = ..., provenance: _Optional[_Union[ProvenanceInput, _Mapping]] = ...) -> None: ...

class ToMCQRequest(_message.Message):
    __slots__ = ("items", "seed", "mcq_writer_model", "domain")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MCQ_WRITER_MODEL_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ItemToConvert]
    seed: int
    mcq_writer_model: str
    domain: str
    def __init__(self, items: _Optional[_Iterable[_Union[ItemToConvert, _Mapping]]] = ..., seed: _Optional[int] = ..., mcq_writer_model: _Optional[str] = ..., domain: _Optional[str] = ...) -> None: ...

class Provenance(_message.Message):
    __slots__ = ("source_item_id", "source", "licence", "units", "candidate_rank")
    SOURCE_ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    LICENCE_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_RANK_FIELD_NUMBER: _ClassVar[int]
    source_item_id: str
    source: str
    licence: str
    units: _containers.RepeatedScalarFieldContainer[str]
    candidate_rank: int
    def __init__(self, source_item_id: _Optional[str] = ..., source: _Optional[str] = ..., licence: _Optional[str] = ..., units: _Optional[_Iterable[str]] = ..., candidate_rank: _Optional[int] = ...) -> None: ...

class MCQ(_message.Message):
    __slots__ = ("id", "query", "answer", "distractor_method", "provenance", "record_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    DISTRACTOR_METHOD_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    query: str
    answer: str
    distractor_method: str
    provenance: Provenance
    record_json: str
    def __init__(self, id: _Optional[str] = ..., query: _Optional[str] = ..., answer: _Optional[str] = ..., distractor_method: _Optional[str] = ..., provenance: _Optional[_Union[Provenance, _Mapping]] = ..., record_json: _Optional[str] = ...) -> None: ...

class ItemResult(_message.Message):
    __slots__ = ("item_id", "mcq", "left_out")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    MCQ_FIELD_NUMBER: _ClassVar[int]
    LEFT_OUT_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    mcq: MCQ
    left_out: str
    def __init__(self, item_id: _Optional[str] = ..., mcq: _Optional[_Union[MCQ, _Mapping]] = ..., left_out: _Optional[str] = ...) -> None: ...

class ToMCQResponse(_message.Message):
    __slots__ = ("results", "warnings", "mcq_writer")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    MCQ_WRITER_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[ItemResult]
    warnings: _containers.RepeatedScalarFieldContainer[str]
    mcq_writer: str
    def __init__(self, results: _Optional[_Iterable[_Union[ItemResult, _Mapping]]] = ..., warnings: _Optional[_Iterable[str]] = ..., mcq_writer: _Optional[str] = ...) -> None: ...
