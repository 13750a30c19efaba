from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Requirement(_message.Message):
    __slots__ = ("yaml", "text", "fields")
    YAML_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    yaml: str
    text: str
    fields: RequirementFields
    def __init__(self, yaml: _Optional[str] = ..., text: _Optional[str] = ..., fields: _Optional[_Union[RequirementFields, _Mapping]] = ...) -> None: ...

class RequirementFields(_message.Message):
    __slots__ = ("name", "domain", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    domain: str
    description: str
    def __init__(self, name: _Optional[str] = ..., domain: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class JuryOptions(_message.Message):
    __slots__ = ("llm_judges", "relevance_quantile")
    LLM_JUDGES_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_QUANTILE_FIELD_NUMBER: _ClassVar[int]
    llm_judges: bool
    relevance_quantile: float
    def __init__(self, llm_judges: _Optional[bool] = ..., relevance_quantile: _Optional[float] = ...) -> None: ...

class RankUnitsRequest(_message.Message):
    __slots__ = ("requirement", "k1", "jury")
    REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    K1_FIELD_NUMBER: _ClassVar[int]
    JURY_FIELD_NUMBER: _ClassVar[int]
    requirement: Requirement
    k1: int
    jury: JuryOptions
    def __init__(self, requirement: _Optional[_Union[Requirement, _Mapping]] = ..., k1: _Optional[int] = ..., jury: _Optional[_Union[JuryOptions, _Mapping]] = ...) -> None: ...

class JudgeRanking(_message.Message):
    __slots__ = ("judge", "kind", "unit_ids")
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    judge: str
    kind: str
    unit_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, judge: _Optional[str] = ..., kind: _Optional[str] = ..., unit_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class VotedUnit(_message.Message):
    __slots__ = ("unit_id", "unit_name", "consensus_rank")
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    UNIT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONSENSUS_RANK_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    unit_name: str
    consensus_rank: float
    def __init__(self, unit_id: _Optional[str] = ..., unit_name: _Optional[str] = ..., consensus_rank: _Optional[float] = ...) -> None: ...

class RankUnitsResponse(_message.Message):
    __slots__ = ("requirement_name", "rankings", "voted_units", "missing_rank", "candidate_units")
    REQUIREMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    RANKINGS_FIELD_NUMBER: _ClassVar[int]
    VOTED_UNITS_FIELD_NUMBER: _ClassVar[int]
    MISSING_RANK_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_UNITS_FIELD_NUMBER: _ClassVar[int]
    requirement_name: str
    rankings: _containers.RepeatedCompositeFieldContainer[JudgeRanking]
    voted_units: _containers.RepeatedCompositeFieldContainer[VotedUnit]
    missing_rank: int
    candidate_units: int
    def __init__(self, requirement_name: _Optional[str] = ..., rankings: _Optional[_Iterable[_Union[JudgeRanking, _Mapping]]] = ..., voted_units: _Optional[_Iterable[_Union[VotedUnit, _Mapping]]] = ..., missing_rank: _Optional[int] = ..., candidate_units: _Optional[int] = ...) -> None: ...

class JudgeRelevanceRequest(_message.Message):
    __slots__ = ("requirement", "item_ids", "voted_unit_ids", "k1", "seed", "jury")
    REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    ITEM_IDS_FIELD_NUMBER: _ClassVar[int]
    VOTED_UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    K1_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    JURY_FIELD_NUMBER: _ClassVar[int]
    requirement: Requirement
    item_ids: _containers.RepeatedScalarFieldContainer[str]
    voted_unit_ids: _containers.RepeatedScalarFieldContainer[str]
    k1: int
    seed: int
    jury: JuryOptions
    def __init__(self, requirement: _Optional[_Union[Requirement, _Mapping]] = ..., item_ids: _Optional[_Iterable[str]] = ..., voted_unit_ids: _Optional[_Iterable[str]] = ..., k1: _Optional[int] = ..., seed: _Optional[int] = ..., jury: _Optional[_Union[JuryOptions, _Mapping]] = ...) -> None: ...

class JudgeVerdict(_message.Message):
    __slots__ = ("judge", "relevant")
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    RELEVANT_FIELD_NUMBER: _ClassVar[int]
    judge: str
    relevant: bool
    def __init__(self, judge: _Optional[str] = ..., relevant: _Optional[bool] = ...) -> None: ...

class ItemVerdict(_message.Message):
    __slots__ = ("item_id", "verdicts", "relevant_votes", "relevant")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    RELEVANT_VOTES_FIELD_NUMBER: _ClassVar[int]
    RELEVANT_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    verdicts: _containers.RepeatedCompositeFieldContainer[JudgeVerdict]
    relevant_votes: int
    relevant: bool
    def __init__(self, item_id: _Optional[str] = ..., verdicts: _Optional[_Iterable[_Union[JudgeVerdict, _Mapping]]] = ..., relevant_votes: _Optional[int] = ..., relevant: _Optional[bool] = ...) -> None: ...

class JudgeRelevanceResponse(_message.Message):
    __slots__ = ("judges", "voted_unit_ids", "items")
    JUDGES_FIELD_NUMBER: _ClassVar[int]
    VOTED_UNIT_IDS_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    judges: _containers.RepeatedScalarFieldContainer[str]
    voted_unit_ids: _containers.RepeatedScalarFieldContainer[str]
    items: _containers.RepeatedCompositeFieldContainer[ItemVerdict]
    def __init__(self, judges: _Optional[_Iterable[str]] = ..., voted_unit_ids: _Optional[_Iterable[str]] = ..., items: _Optional[_Iterable[_Union[ItemVerdict, _Mapping]]] = ...) -> None: ...
