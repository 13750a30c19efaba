from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ScoredItem(_message.Message):
    __slots__ = ("id", "hardness", "quality")
    ID_FIELD_NUMBER: _ClassVar[int]
    HARDNESS_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    hardness: float
    quality: float
    def __init__(self, id: _Optional[str] = ..., hardness: _Optional[float] = ..., quality: _Optional[float] = ...) -> None: ...

class SelectProxySubsetRequest(_message.Message):
    __slots__ = ("items", "k2", "samples", "seed")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    K2_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ScoredItem]
    k2: int
    samples: int
    seed: int
    def __init__(self, items: _Optional[_Iterable[_Union[ScoredItem, _Mapping]]] = ..., k2: _Optional[int] = ..., samples: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...

class ChosenItem(_message.Message):
    __slots__ = ("id", "position", "hardness", "quality")
    ID_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    HARDNESS_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    position: int
    hardness: float
    quality: float
    def __init__(self, id: _Optional[str] = ..., position: _Optional[int] = ..., hardness: _Optional[float] = ..., quality: _Optional[float] = ...) -> None: ...

class SelectProxySubsetResponse(_message.Message):
    __slots__ = ("chosen", "w1_hardness", "w1_quality", "w1_total", "clusters", "subsets", "embedder", "scores_source", "scores_computed")
    CHOSEN_FIELD_NUMBER: _ClassVar[int]
    W1_HARDNESS_FIELD_NUMBER: _ClassVar[int]
    W1_QUALITY_FIELD_NUMBER: _ClassVar[int]
    W1_TOTAL_FIELD_NUMBER: _ClassVar[int]
    CLUSTERS_FIELD_NUMBER: _ClassVar[int]
    SUBSETS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDER_FIELD_NUMBER: _ClassVar[int]
    SCORES_SOURCE_FIELD_NUMBER: _ClassVar[int]
    SCORES_COMPUTED_FIELD_NUMBER: _ClassVar[int]
    chosen: _containers.RepeatedCompositeFieldContainer[ChosenItem]
    w1_hardness: float
    w1_quality: float
    w1_total: float
    clusters: int
    subsets: int
    embedder: str
    scores_source: str
    scores_computed: int
    def __init__(self, chosen: _Optional[_Iterable[_Union[ChosenItem, _Mapping]]] = ..., w1_hardness: _Optional[float] = ..., w1_quality: _Optional[float] = ..., w1_total: _Optional[float] = ..., clusters: _Optional[int] = ..., subsets: _Optional[int] = ..., embedder: _Optional[str] = ..., scores_source: _Optional[str] = ..., scores_computed: _Optional[int] = ...) -> None: ...
