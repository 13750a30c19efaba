from scicustom.artifacts.v1 import artifacts_pb2 as _artifacts_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class KeywordOrigin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KEYWORD_ORIGIN_UNSPECIFIED: _ClassVar[KeywordOrigin]
    KEYWORD_ORIGIN_UNIT_SET: _ClassVar[KeywordOrigin]
    KEYWORD_ORIGIN_DERIVED: _ClassVar[KeywordOrigin]

class OntologyFileFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ONTOLOGY_FILE_FORMAT_UNSPECIFIED: _ClassVar[OntologyFileFormat]
    ONTOLOGY_FILE_FORMAT_OBO: _ClassVar[OntologyFileFormat]
    ONTOLOGY_FILE_FORMAT_OWL: _ClassVar[OntologyFileFormat]
KEYWORD_ORIGIN_UNSPECIFIED: KeywordOrigin
KEYWORD_ORIGIN_UNIT_SET: KeywordOrigin
KEYWORD_ORIGIN_DERIVED: KeywordOrigin
ONTOLOGY_FILE_FORMAT_UNSPECIFIED: OntologyFileFormat
ONTOLOGY_FILE_FORMAT_OBO: OntologyFileFormat
ONTOLOGY_FILE_FORMAT_OWL: OntologyFileFormat

class ListUnitsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListUnitsResponse(_message.Message):
    __slots__ = ("units", "next_page_token", "total_size", "units_version")
    UNITS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    UNITS_VERSION_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedCompositeFieldContainer[_artifacts_pb2.KnowledgeUnit]
    next_page_token: str
    total_size: int
    units_version: str
    def __init__(self, units: _Optional[_Iterable[_Union[_artifacts_pb2.KnowledgeUnit, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_size: _Optional[int] = ..., units_version: _Optional[str] = ...) -> None: ...

class GetUnitRequest(_message.Message):
    __slots__ = ("unit_id",)
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    def __init__(self, unit_id: _Optional[str] = ...) -> None: ...

class GetKeywordsRequest(_message.Message):
    __slots__ = ("unit_id",)
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    def __init__(self, unit_id: _Optional[str] = ...) -> None: ...

class Anchor(_message.Message):
    __slots__ = ("source", "node_id", "label", "method", "score")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    source: str
    node_id: str
    label: str
    method: str
    score: float
    def __init__(self, source: _Optional[str] = ..., node_id: _Optional[str] = ..., label: _Optional[str] = ..., method: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class GetKeywordsResponse(_message.Message):
    __slots__ = ("unit_id", "unit_name", "keywords", "origin", "anchors")
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    UNIT_NAME_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    ANCHORS_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    unit_name: str
    keywords: _containers.RepeatedScalarFieldContainer[str]
    origin: KeywordOrigin
    anchors: _containers.RepeatedCompositeFieldContainer[Anchor]
    def __init__(self, unit_id: _Optional[str] = ..., unit_name: _Optional[str] = ..., keywords: _Optional[_Iterable[str]] = ..., origin: _Optional[_Union[KeywordOrigin, str]] = ..., anchors: _Optional[_Iterable[_Union[Anchor, _Mapping]]] = ...) -> None: ...

class OntologyFile(_message.Message):
    __slots__ = ("name", "format", "content")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    format: OntologyFileFormat
    content: bytes
    def __init__(self, name: _Optional[str] = ..., format: _Optional[_Union[OntologyFileFormat, str]] = ..., content: _Optional[bytes] = ...) -> None: ...

class UnitSelection(_message.Message):
    __slots__ = ("judge", "model", "sources", "min_descendants", "max_keywords")
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    MIN_DESCENDANTS_FIELD_NUMBER: _ClassVar[int]
    MAX_KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    judge: str
    model: str
    sources: _containers.RepeatedScalarFieldContainer[str]
    min_descendants: int
    max_keywords: int
    def __init__(self, judge: _Optional[str] = ..., model: _Optional[str] = ..., sources: _Optional[_Iterable[str]] = ..., min_descendants: _Optional[int] = ..., max_keywords: _Optional[int] = ...) -> None: ...

class ImportOntologyRequest(_message.Message):
    __slots__ = ("sources", "file", "force", "select_units")
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    SELECT_UNITS_FIELD_NUMBER: _ClassVar[int]
    sources: _containers.RepeatedScalarFieldContainer[str]
    file: OntologyFile
    force: bool
    select_units: UnitSelection
    def __init__(self, sources: _Optional[_Iterable[str]] = ..., file: _Optional[_Union[OntologyFile, _Mapping]] = ..., force: _Optional[bool] = ..., select_units: _Optional[_Union[UnitSelection, _Mapping]] = ...) -> None: ...

class SourceOutcome(_message.Message):
    __slots__ = ("source", "status")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    source: str
    status: str
    def __init__(self, source: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class SourceReport(_message.Message):
    __slots__ = ("source", "version", "origin", "terms", "edges", "roots", "max_depth", "dropped_edges", "cycle_edges_removed")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ROOTS_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    DROPPED_EDGES_FIELD_NUMBER: _ClassVar[int]
    CYCLE_EDGES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    source: str
    version: str
    origin: str
    terms: int
    edges: int
    roots: int
    max_depth: int
    dropped_edges: int
    cycle_edges_removed: int
    def __init__(self, source: _Optional[str] = ..., version: _Optional[str] = ..., origin: _Optional[str] = ..., terms: _Optional[int] = ..., edges: _Optional[int] = ..., roots: _Optional[int] = ..., max_depth: _Optional[int] = ..., dropped_edges: _Optional[int] = ..., cycle_edges_removed: _Optional[int] = ...) -> None: ...

class UnitSelectionSummary(_message.Message):
    __slots__ = ("judge", "visited", "judged", "backtracked_small", "n_units", "unit_set_key", "unit_set_sha256", "unparsed_answers")
    class JudgedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    VISITED_FIELD_NUMBER: _ClassVar[int]
    JUDGED_FIELD_NUMBER: _ClassVar[int]
    BACKTRACKED_SMALL_FIELD_NUMBER: _ClassVar[int]
    N_UNITS_FIELD_NUMBER: _ClassVar[int]
    UNIT_SET_KEY_FIELD_NUMBER: _ClassVar[int]
    UNIT_SET_SHA256_FIELD_NUMBER: _ClassVar[int]
    UNPARSED_ANSWERS_FIELD_NUMBER: _ClassVar[int]
    judge: str
    visited: int
    judged: _containers.ScalarMap[str, int]
    backtracked_small: int
    n_units: int
    unit_set_key: str
    unit_set_sha256: str
    unparsed_answers: int
    def __init__(self, judge: _Optional[str] = ..., visited: _Optional[int] = ..., judged: _Optional[_Mapping[str, int]] = ..., backtracked_small: _Optional[int] = ..., n_units: _Optional[int] = ..., unit_set_key: _Optional[str] = ..., unit_set_sha256: _Optional[str] = ..., unparsed_answers: _Optional[int] = ...) -> None: ...

class ImportOntologyResponse(_message.Message):
    __slots__ = ("outcomes", "sources", "selection")
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    outcomes: _containers.RepeatedCompositeFieldContainer[SourceOutcome]
    sources: _containers.RepeatedCompositeFieldContainer[SourceReport]
    selection: UnitSelectionSummary
    def __init__(self, outcomes: _Optional[_Iterable[_Union[SourceOutcome, _Mapping]]] = ..., sources: _Optional[_Iterable[_Union[SourceReport, _Mapping]]] = ..., selection: _Optional[_Union[UnitSelectionSummary, _Mapping]] = ...) -> None: ...
