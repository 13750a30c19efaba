from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class UnitScore(_message.Message):
    __slots__ = ("unit_id", "unit_name", "score")
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    UNIT_NAME_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    unit_name: str
    score: float
    def __init__(self, unit_id: _Optional[str] = ..., unit_name: _Optional[str] = ..., score: _Optional[float] = ...) -> None: ...

class TextTags(_message.Message):
    __slots__ = ("units",)
    UNITS_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedCompositeFieldContainer[UnitScore]
    def __init__(self, units: _Optional[_Iterable[_Union[UnitScore, _Mapping]]] = ...) -> None: ...

class TagRequest(_message.Message):
    __slots__ = ("text", "top_k")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    text: str
    top_k: int
    def __init__(self, text: _Optional[str] = ..., top_k: _Optional[int] = ...) -> None: ...

class TagResponse(_message.Message):
    __slots__ = ("tags", "tagger_version")
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAGGER_VERSION_FIELD_NUMBER: _ClassVar[int]
    tags: TextTags
    tagger_version: str
    def __init__(self, tags: _Optional[_Union[TextTags, _Mapping]] = ..., tagger_version: _Optional[str] = ...) -> None: ...

class TagBatchRequest(_message.Message):
    __slots__ = ("texts", "top_k")
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    top_k: int
    def __init__(self, texts: _Optional[_Iterable[str]] = ..., top_k: _Optional[int] = ...) -> None: ...

class TagBatchResponse(_message.Message):
    __slots__ = ("tags", "tagger_version")
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAGGER_VERSION_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedCompositeFieldContainer[TextTags]
    tagger_version: str
    def __init__(self, tags: _Optional[_Iterable[_Union[TextTags, _Mapping]]] = ..., tagger_version: _Optional[str] = ...) -> None: ...
