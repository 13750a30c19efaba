from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ItemFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ITEM_FORMAT_UNSPECIFIED: _ClassVar[ItemFormat]
    ITEM_FORMAT_MCQ: _ClassVar[ItemFormat]
    ITEM_FORMAT_OPEN: _ClassVar[ItemFormat]
ITEM_FORMAT_UNSPECIFIED: ItemFormat
ITEM_FORMAT_MCQ: ItemFormat
ITEM_FORMAT_OPEN: ItemFormat

class KnowledgeUnit(_message.Message):
    __slots__ = ("id", "name", "domain", "keywords")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    domain: str
    keywords: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., domain: _Optional[str] = ..., keywords: _Optional[_Iterable[str]] = ...) -> None: ...

class CorpusItem(_message.Message):
    __slots__ = ("id", "source", "licence", "subject", "question", "options", "answer_index", "answer", "format", "unit_ids", "hardness", "quality")
    ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    LICENCE_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_INDEX_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    HARDNESS_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    source: str
    licence: str
    subject: str
    question: str
    options: _containers.RepeatedScalarFieldContainer[str]
    answer_index: int
    answer: str
    format: ItemFormat
    unit_ids: _containers.RepeatedScalarFieldContainer[str]
    hardness: float
    quality: float
    def __init__(self, id: _Optional[str] = ..., source: _Optional[str] = ..., licence: _Optional[str] = ..., subject: _Optional[str] = ..., question: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., answer_index: _Optional[int] = ..., answer: _Optional[str] = ..., format: _Optional[_Union[ItemFormat, str]] = ..., unit_ids: _Optional[_Iterable[str]] = ..., hardness: _Optional[float] = ..., quality: _Optional[float] = ...) -> None: ...

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
    __slots__ = ("id", "query", "answer", "provenance", "distractor_method", "choices")
    ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    DISTRACTOR_METHOD_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    id: str
    query: str
    answer: str
    provenance: Provenance
    distractor_method: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., query: _Optional[str] = ..., answer: _Optional[str] = ..., provenance: _Optional[_Union[Provenance, _Mapping]] = ..., distractor_method: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ...) -> None: ...

class BuildSpec(_message.Message):
    __slots__ = ("requirement_name", "domain", "description", "k1", "k2", "proxy_samples", "seed", "method", "voting_judges", "relevance_judges", "mcq_writer")
    REQUIREMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    K1_FIELD_NUMBER: _ClassVar[int]
    K2_FIELD_NUMBER: _ClassVar[int]
    PROXY_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    VOTING_JUDGES_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_JUDGES_FIELD_NUMBER: _ClassVar[int]
    MCQ_WRITER_FIELD_NUMBER: _ClassVar[int]
    requirement_name: str
    domain: str
    description: str
    k1: int
    k2: int
    proxy_samples: int
    seed: int
    method: str
    voting_judges: _containers.RepeatedScalarFieldContainer[str]
    relevance_judges: _containers.RepeatedScalarFieldContainer[str]
    mcq_writer: str
    def __init__(self, requirement_name: _Optional[str] = ..., domain: _Optional[str] = ..., description: _Optional[str] = ..., k1: _Optional[int] = ..., k2: _Optional[int] = ..., proxy_samples: _Optional[int] = ..., seed: _Optional[int] = ..., method: _Optional[str] = ..., voting_judges: _Optional[_Iterable[str]] = ..., relevance_judges: _Optional[_Iterable[str]] = ..., mcq_writer: _Optional[str] = ...) -> None: ...
