from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VotedUnit(_message.Message):
    __slots__ = ("unit_id", "consensus_rank")
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    CONSENSUS_RANK_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    consensus_rank: float
    def __init__(self, unit_id: _Optional[str] = ..., consensus_rank: _Optional[float] = ...) -> None: ...

class CandidatesRequest(_message.Message):
    __slots__ = ("voted_units", "page_size", "page_token")
    VOTED_UNITS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    voted_units: _containers.RepeatedCompositeFieldContainer[VotedUnit]
    page_size: int
    page_token: str
    def __init__(self, voted_units: _Optional[_Iterable[_Union[VotedUnit, _Mapping]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class Candidate(_message.Message):
    __slots__ = ("item_id", "shared_unit_ids", "mean_consensus_rank", "position")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    SHARED_UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    MEAN_CONSENSUS_RANK_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    shared_unit_ids: _containers.RepeatedScalarFieldContainer[str]
    mean_consensus_rank: float
    position: int
    def __init__(self, item_id: _Optional[str] = ..., shared_unit_ids: _Optional[_Iterable[str]] = ..., mean_consensus_rank: _Optional[float] = ..., position: _Optional[int] = ...) -> None: ...

class CandidatesResponse(_message.Message):
    __slots__ = ("candidates", "next_page_token")
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    candidates: _containers.RepeatedCompositeFieldContainer[Candidate]
    next_page_token: str
    def __init__(self, candidates: _Optional[_Iterable[_Union[Candidate, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("text", "k")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    text: str
    k: int
    def __init__(self, text: _Optional[str] = ..., k: _Optional[int] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("item_id", "cosine")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    COSINE_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    cosine: float
    def __init__(self, item_id: _Optional[str] = ..., cosine: _Optional[float] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits", "embedder")
    HITS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDER_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    embedder: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., embedder: _Optional[str] = ...) -> None: ...
