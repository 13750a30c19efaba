from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AuditMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUDIT_MODE_UNSPECIFIED: _ClassVar[AuditMode]
    AUDIT_MODE_STRICT: _ClassVar[AuditMode]
    AUDIT_MODE_LOOSE: _ClassVar[AuditMode]

class AuditStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUDIT_STATUS_UNSPECIFIED: _ClassVar[AuditStatus]
    AUDIT_STATUS_PASS: _ClassVar[AuditStatus]
    AUDIT_STATUS_FAIL: _ClassVar[AuditStatus]
    AUDIT_STATUS_UNDECIDED: _ClassVar[AuditStatus]
AUDIT_MODE_UNSPECIFIED: AuditMode
AUDIT_MODE_STRICT: AuditMode
AUDIT_MODE_LOOSE: AuditMode
AUDIT_STATUS_UNSPECIFIED: AuditStatus
AUDIT_STATUS_PASS: AuditStatus
AUDIT_STATUS_FAIL: AuditStatus
AUDIT_STATUS_UNDECIDED: AuditStatus

class LLMUsage(_message.Message):
    __slots__ = ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd")
    CALLS_FIELD_NUMBER: _ClassVar[int]
    CACHED_CALLS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    def __init__(self, calls: _Optional[int] = ..., cached_calls: _Optional[int] = ..., prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ...) -> None: ...

class Hypothesis(_message.Message):
    __slots__ = ("paper_id", "problem_statement", "problem_core", "hypothesis", "reasoning_process", "mechanism_or_rationale", "intervention_or_solution", "claimed_outcome", "target_property", "novelty_axis", "battery_system", "component", "failure_mode_or_limitation", "keywords", "evidence_strength", "problem_type_broad", "problem_type_fine", "columns")
    class ColumnsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PAPER_ID_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_STATEMENT_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_CORE_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    REASONING_PROCESS_FIELD_NUMBER: _ClassVar[int]
    MECHANISM_OR_RATIONALE_FIELD_NUMBER: _ClassVar[int]
    INTERVENTION_OR_SOLUTION_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TARGET_PROPERTY_FIELD_NUMBER: _ClassVar[int]
    NOVELTY_AXIS_FIELD_NUMBER: _ClassVar[int]
    BATTERY_SYSTEM_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    FAILURE_MODE_OR_LIMITATION_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_TYPE_BROAD_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_TYPE_FINE_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    paper_id: str
    problem_statement: str
    problem_core: str
    hypothesis: str
    reasoning_process: str
    mechanism_or_rationale: str
    intervention_or_solution: str
    claimed_outcome: str
    target_property: str
    novelty_axis: str
    battery_system: str
    component: str
    failure_mode_or_limitation: str
    keywords: str
    evidence_strength: str
    problem_type_broad: str
    problem_type_fine: str
    columns: _containers.ScalarMap[str, str]
    def __init__(self, paper_id: _Optional[str] = ..., problem_statement: _Optional[str] = ..., problem_core: _Optional[str] = ..., hypothesis: _Optional[str] = ..., reasoning_process: _Optional[str] = ..., mechanism_or_rationale: _Optional[str] = ..., intervention_or_solution: _Optional[str] = ..., claimed_outcome: _Optional[str] = ..., target_property: _Optional[str] = ..., novelty_axis: _Optional[str] = ..., battery_system: _Optional[str] = ..., component: _Optional[str] = ..., failure_mode_or_limitation: _Optional[str] = ..., keywords: _Optional[str] = ..., evidence_strength: _Optional[str] = ..., problem_type_broad: _Optional[str] = ..., problem_type_fine: _Optional[str] = ..., columns: _Optional[_Mapping[str, str]] = ...) -> None: ...

class M2MOptions(_message.Message):
    __slots__ = ("group_by", "min_group_size", "id_column", "system_column", "missing_as_empty", "word_bounded_terms", "stable_vocabulary", "unicode_units", "corrected", "taxonomy", "sensitivity", "references", "reference_embeddings", "attacks", "attack_sample", "attack_model", "seed", "judge_models", "judge_pairs", "judge_problems")
    class ReferencesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GROUP_BY_FIELD_NUMBER: _ClassVar[int]
    MIN_GROUP_SIZE_FIELD_NUMBER: _ClassVar[int]
    ID_COLUMN_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_COLUMN_FIELD_NUMBER: _ClassVar[int]
    MISSING_AS_EMPTY_FIELD_NUMBER: _ClassVar[int]
    WORD_BOUNDED_TERMS_FIELD_NUMBER: _ClassVar[int]
    STABLE_VOCABULARY_FIELD_NUMBER: _ClassVar[int]
    UNICODE_UNITS_FIELD_NUMBER: _ClassVar[int]
    CORRECTED_FIELD_NUMBER: _ClassVar[int]
    TAXONOMY_FIELD_NUMBER: _ClassVar[int]
    SENSITIVITY_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    ATTACKS_FIELD_NUMBER: _ClassVar[int]
    ATTACK_SAMPLE_FIELD_NUMBER: _ClassVar[int]
    ATTACK_MODEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    JUDGE_MODELS_FIELD_NUMBER: _ClassVar[int]
    JUDGE_PAIRS_FIELD_NUMBER: _ClassVar[int]
    JUDGE_PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    group_by: str
    min_group_size: int
    id_column: str
    system_column: str
    missing_as_empty: bool
    word_bounded_terms: bool
    stable_vocabulary: bool
    unicode_units: bool
    corrected: bool
    taxonomy: bool
    sensitivity: bool
    references: _containers.ScalarMap[str, str]
    reference_embeddings: bool
    attacks: bool
    attack_sample: int
    attack_model: str
    seed: int
    judge_models: _containers.RepeatedScalarFieldContainer[str]
    judge_pairs: _containers.RepeatedScalarFieldContainer[str]
    judge_problems: int
    def __init__(self, group_by: _Optional[str] = ..., min_group_size: _Optional[int] = ..., id_column: _Optional[str] = ..., system_column: _Optional[str] = ..., missing_as_empty: _Optional[bool] = ..., word_bounded_terms: _Optional[bool] = ..., stable_vocabulary: _Optional[bool] = ..., unicode_units: _Optional[bool] = ..., corrected: _Optional[bool] = ..., taxonomy: _Optional[bool] = ..., sensitivity: _Optional[bool] = ..., references: _Optional[_Mapping[str, str]] = ..., reference_embeddings: _Optional[bool] = ..., attacks: _Optional[bool] = ..., attack_sample: _Optional[int] = ..., attack_model: _Optional[str] = ..., seed: _Optional[int] = ..., judge_models: _Optional[_Iterable[str]] = ..., judge_pairs: _Optional[_Iterable[str]] = ..., judge_problems: _Optional[int] = ...) -> None: ...

class ScoreHypothesesRequest(_message.Message):
    __slots__ = ("records", "options")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[Hypothesis]
    options: M2MOptions
    def __init__(self, records: _Optional[_Iterable[_Union[Hypothesis, _Mapping]]] = ..., options: _Optional[_Union[M2MOptions, _Mapping]] = ...) -> None: ...

class HypothesisScores(_message.Message):
    __slots__ = ("id", "system", "rcf", "hpa", "msi", "sns", "ip", "pdq", "cbs", "sub")
    class SubEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    RCF_FIELD_NUMBER: _ClassVar[int]
    HPA_FIELD_NUMBER: _ClassVar[int]
    MSI_FIELD_NUMBER: _ClassVar[int]
    SNS_FIELD_NUMBER: _ClassVar[int]
    IP_FIELD_NUMBER: _ClassVar[int]
    PDQ_FIELD_NUMBER: _ClassVar[int]
    CBS_FIELD_NUMBER: _ClassVar[int]
    SUB_FIELD_NUMBER: _ClassVar[int]
    id: str
    system: str
    rcf: float
    hpa: float
    msi: float
    sns: float
    ip: float
    pdq: float
    cbs: float
    sub: _containers.ScalarMap[str, float]
    def __init__(self, id: _Optional[str] = ..., system: _Optional[str] = ..., rcf: _Optional[float] = ..., hpa: _Optional[float] = ..., msi: _Optional[float] = ..., sns: _Optional[float] = ..., ip: _Optional[float] = ..., pdq: _Optional[float] = ..., cbs: _Optional[float] = ..., sub: _Optional[_Mapping[str, float]] = ...) -> None: ...

class MetricMeans(_message.Message):
    __slots__ = ("system", "rows", "rcf", "hpa", "msi", "sns", "ip", "pdq", "cbs")
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    RCF_FIELD_NUMBER: _ClassVar[int]
    HPA_FIELD_NUMBER: _ClassVar[int]
    MSI_FIELD_NUMBER: _ClassVar[int]
    SNS_FIELD_NUMBER: _ClassVar[int]
    IP_FIELD_NUMBER: _ClassVar[int]
    PDQ_FIELD_NUMBER: _ClassVar[int]
    CBS_FIELD_NUMBER: _ClassVar[int]
    system: str
    rows: int
    rcf: float
    hpa: float
    msi: float
    sns: float
    ip: float
    pdq: float
    cbs: float
    def __init__(self, system: _Optional[str] = ..., rows: _Optional[int] = ..., rcf: _Optional[float] = ..., hpa: _Optional[float] = ..., msi: _Optional[float] = ..., sns: _Optional[float] = ..., ip: _Optional[float] = ..., pdq: _Optional[float] = ..., cbs: _Optional[float] = ...) -> None: ...

class ScoreHypothesesResponse(_message.Message):
    __slots__ = ("scores", "overall", "per_system", "scores_json", "report_json", "usage")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    OVERALL_FIELD_NUMBER: _ClassVar[int]
    PER_SYSTEM_FIELD_NUMBER: _ClassVar[int]
    SCORES_JSON_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedCompositeFieldContainer[HypothesisScores]
    overall: MetricMeans
    per_system: _containers.RepeatedCompositeFieldContainer[MetricMeans]
    scores_json: str
    report_json: str
    usage: LLMUsage
    def __init__(self, scores: _Optional[_Iterable[_Union[HypothesisScores, _Mapping]]] = ..., overall: _Optional[_Union[MetricMeans, _Mapping]] = ..., per_system: _Optional[_Iterable[_Union[MetricMeans, _Mapping]]] = ..., scores_json: _Optional[str] = ..., report_json: _Optional[str] = ..., usage: _Optional[_Union[LLMUsage, _Mapping]] = ...) -> None: ...

class ValueRange(_message.Message):
    __slots__ = ("low", "high")
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    low: float
    high: float
    def __init__(self, low: _Optional[float] = ..., high: _Optional[float] = ...) -> None: ...

class FinalAnswerTarget(_message.Message):
    __slots__ = ("value", "range", "expression", "choice", "unit", "rel_tol", "abs_tol", "sig_figs")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    REL_TOL_FIELD_NUMBER: _ClassVar[int]
    ABS_TOL_FIELD_NUMBER: _ClassVar[int]
    SIG_FIGS_FIELD_NUMBER: _ClassVar[int]
    value: float
    range: ValueRange
    expression: str
    choice: str
    unit: str
    rel_tol: float
    abs_tol: float
    sig_figs: int
    def __init__(self, value: _Optional[float] = ..., range: _Optional[_Union[ValueRange, _Mapping]] = ..., expression: _Optional[str] = ..., choice: _Optional[str] = ..., unit: _Optional[str] = ..., rel_tol: _Optional[float] = ..., abs_tol: _Optional[float] = ..., sig_figs: _Optional[int] = ...) -> None: ...

class SciIFItem(_message.Message):
    __slots__ = ("id", "question", "constraints", "subject", "reference_answer", "final_answer")
    ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_ANSWER_FIELD_NUMBER: _ClassVar[int]
    FINAL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    id: str
    question: str
    constraints: _containers.RepeatedScalarFieldContainer[str]
    subject: str
    reference_answer: str
    final_answer: _containers.RepeatedCompositeFieldContainer[FinalAnswerTarget]
    def __init__(self, id: _Optional[str] = ..., question: _Optional[str] = ..., constraints: _Optional[_Iterable[str]] = ..., subject: _Optional[str] = ..., reference_answer: _Optional[str] = ..., final_answer: _Optional[_Iterable[_Union[FinalAnswerTarget, _Mapping]]] = ...) -> None: ...

class SciIFAnswer(_message.Message):
    __slots__ = ("item_id", "model", "answer")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    model: str
    answer: str
    def __init__(self, item_id: _Optional[str] = ..., model: _Optional[str] = ..., answer: _Optional[str] = ...) -> None: ...

class SciIFOptions(_message.Message):
    __slots__ = ("judges", "mode", "gate_on_correctness", "no_evidence_patterns", "generate_with", "workers")
    JUDGES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    GATE_ON_CORRECTNESS_FIELD_NUMBER: _ClassVar[int]
    NO_EVIDENCE_PATTERNS_FIELD_NUMBER: _ClassVar[int]
    GENERATE_WITH_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    judges: _containers.RepeatedScalarFieldContainer[str]
    mode: AuditMode
    gate_on_correctness: bool
    no_evidence_patterns: bool
    generate_with: str
    workers: int
    def __init__(self, judges: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[AuditMode, str]] = ..., gate_on_correctness: _Optional[bool] = ..., no_evidence_patterns: _Optional[bool] = ..., generate_with: _Optional[str] = ..., workers: _Optional[int] = ...) -> None: ...

class AuditInstructionFollowingRequest(_message.Message):
    __slots__ = ("items", "answers", "options")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[SciIFItem]
    answers: _containers.RepeatedCompositeFieldContainer[SciIFAnswer]
    options: SciIFOptions
    def __init__(self, items: _Optional[_Iterable[_Union[SciIFItem, _Mapping]]] = ..., answers: _Optional[_Iterable[_Union[SciIFAnswer, _Mapping]]] = ..., options: _Optional[_Union[SciIFOptions, _Mapping]] = ...) -> None: ...

class ConstraintResult(_message.Message):
    __slots__ = ("constraint_id", "name", "family", "status")
    CONSTRAINT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    constraint_id: str
    name: str
    family: str
    status: AuditStatus
    def __init__(self, constraint_id: _Optional[str] = ..., name: _Optional[str] = ..., family: _Optional[str] = ..., status: _Optional[_Union[AuditStatus, str]] = ...) -> None: ...

class AnswerAudit(_message.Message):
    __slots__ = ("item_id", "model", "k", "compliance", "correctness", "compliance_gated", "reward", "constraints", "judge_failures")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    CORRECTNESS_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_GATED_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    JUDGE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    model: str
    k: int
    compliance: AuditStatus
    correctness: AuditStatus
    compliance_gated: AuditStatus
    reward: float
    constraints: _containers.RepeatedCompositeFieldContainer[ConstraintResult]
    judge_failures: int
    def __init__(self, item_id: _Optional[str] = ..., model: _Optional[str] = ..., k: _Optional[int] = ..., compliance: _Optional[_Union[AuditStatus, str]] = ..., correctness: _Optional[_Union[AuditStatus, str]] = ..., compliance_gated: _Optional[_Union[AuditStatus, str]] = ..., reward: _Optional[float] = ..., constraints: _Optional[_Iterable[_Union[ConstraintResult, _Mapping]]] = ..., judge_failures: _Optional[int] = ...) -> None: ...

class Rate(_message.Message):
    __slots__ = ("passed", "failed", "undecided", "total", "rate", "decided_rate")
    PASSED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    UNDECIDED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    RATE_FIELD_NUMBER: _ClassVar[int]
    DECIDED_RATE_FIELD_NUMBER: _ClassVar[int]
    passed: int
    failed: int
    undecided: int
    total: int
    rate: float
    decided_rate: float
    def __init__(self, passed: _Optional[int] = ..., failed: _Optional[int] = ..., undecided: _Optional[int] = ..., total: _Optional[int] = ..., rate: _Optional[float] = ..., decided_rate: _Optional[float] = ...) -> None: ...

class SciIFModelSummary(_message.Message):
    __slots__ = ("model", "items", "correctness", "compliance", "single_constraint", "multi_constraint", "mean_reward")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    CORRECTNESS_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    SINGLE_CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    MULTI_CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    MEAN_REWARD_FIELD_NUMBER: _ClassVar[int]
    model: str
    items: int
    correctness: Rate
    compliance: Rate
    single_constraint: Rate
    multi_constraint: Rate
    mean_reward: float
    def __init__(self, model: _Optional[str] = ..., items: _Optional[int] = ..., correctness: _Optional[_Union[Rate, _Mapping]] = ..., compliance: _Optional[_Union[Rate, _Mapping]] = ..., single_constraint: _Optional[_Union[Rate, _Mapping]] = ..., multi_constraint: _Optional[_Union[Rate, _Mapping]] = ..., mean_reward: _Optional[float] = ...) -> None: ...

class GeneratedAnswer(_message.Message):
    __slots__ = ("item_id", "model", "answer")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    model: str
    answer: str
    def __init__(self, item_id: _Optional[str] = ..., model: _Optional[str] = ..., answer: _Optional[str] = ...) -> None: ...

class AuditInstructionFollowingResponse(_message.Message):
    __slots__ = ("audits", "models", "generated", "report_json", "usage")
    AUDITS_FIELD_NUMBER: _ClassVar[int]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    GENERATED_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    audits: _containers.RepeatedCompositeFieldContainer[AnswerAudit]
    models: _containers.RepeatedCompositeFieldContainer[SciIFModelSummary]
    generated: _containers.RepeatedCompositeFieldContainer[GeneratedAnswer]
    report_json: str
    usage: LLMUsage
    def __init__(self, audits: _Optional[_Iterable[_Union[AnswerAudit, _Mapping]]] = ..., models: _Optional[_Iterable[_Union[SciIFModelSummary, _Mapping]]] = ..., generated: _Optional[_Iterable[_Union[GeneratedAnswer, _Mapping]]] = ..., report_json: _Optional[str] = ..., usage: _Optional[_Union[LLMUsage, _Mapping]] = ...) -> None: ...

class RecipePrediction(_message.Message):
    __slots__ = ("id", "prediction_id", "contribution", "recipe", "prediction", "model", "top_k")
    ID_FIELD_NUMBER: _ClassVar[int]
    PREDICTION_ID_FIELD_NUMBER: _ClassVar[int]
    CONTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    RECIPE_FIELD_NUMBER: _ClassVar[int]
    PREDICTION_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    id: str
    prediction_id: str
    contribution: str
    recipe: str
    prediction: str
    model: str
    top_k: int
    def __init__(self, id: _Optional[str] = ..., prediction_id: _Optional[str] = ..., contribution: _Optional[str] = ..., recipe: _Optional[str] = ..., prediction: _Optional[str] = ..., model: _Optional[str] = ..., top_k: _Optional[int] = ...) -> None: ...

class ExpertRating(_message.Message):
    __slots__ = ("id", "rater", "group", "overall", "materials_appropriateness", "equipment_appropriateness", "procedure_completeness", "procedure_similarity", "procedure_feasibility", "characterization_appropriateness", "characterization_similarity")
    ID_FIELD_NUMBER: _ClassVar[int]
    RATER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    OVERALL_FIELD_NUMBER: _ClassVar[int]
    MATERIALS_APPROPRIATENESS_FIELD_NUMBER: _ClassVar[int]
    EQUIPMENT_APPROPRIATENESS_FIELD_NUMBER: _ClassVar[int]
    PROCEDURE_COMPLETENESS_FIELD_NUMBER: _ClassVar[int]
    PROCEDURE_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    PROCEDURE_FEASIBILITY_FIELD_NUMBER: _ClassVar[int]
    CHARACTERIZATION_APPROPRIATENESS_FIELD_NUMBER: _ClassVar[int]
    CHARACTERIZATION_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    rater: str
    group: str
    overall: float
    materials_appropriateness: float
    equipment_appropriateness: float
    procedure_completeness: float
    procedure_similarity: float
    procedure_feasibility: float
    characterization_appropriateness: float
    characterization_similarity: float
    def __init__(self, id: _Optional[str] = ..., rater: _Optional[str] = ..., group: _Optional[str] = ..., overall: _Optional[float] = ..., materials_appropriateness: _Optional[float] = ..., equipment_appropriateness: _Optional[float] = ..., procedure_completeness: _Optional[float] = ..., procedure_similarity: _Optional[float] = ..., procedure_feasibility: _Optional[float] = ..., characterization_appropriateness: _Optional[float] = ..., characterization_similarity: _Optional[float] = ...) -> None: ...

class JudgeRecipesRequest(_message.Message):
    __slots__ = ("predictions", "judge", "expert_ratings", "workers")
    PREDICTIONS_FIELD_NUMBER: _ClassVar[int]
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    EXPERT_RATINGS_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    predictions: _containers.RepeatedCompositeFieldContainer[RecipePrediction]
    judge: str
    expert_ratings: _containers.RepeatedCompositeFieldContainer[ExpertRating]
    workers: int
    def __init__(self, predictions: _Optional[_Iterable[_Union[RecipePrediction, _Mapping]]] = ..., judge: _Optional[str] = ..., expert_ratings: _Optional[_Iterable[_Union[ExpertRating, _Mapping]]] = ..., workers: _Optional[int] = ...) -> None: ...

class RecipeJudgement(_message.Message):
    __slots__ = ("id", "group", "attempts", "problem", "criteria", "overall", "judge_overall", "off_grid", "bleu", "rouge_l")
    class CriteriaEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    CRITERIA_FIELD_NUMBER: _ClassVar[int]
    OVERALL_FIELD_NUMBER: _ClassVar[int]
    JUDGE_OVERALL_FIELD_NUMBER: _ClassVar[int]
    OFF_GRID_FIELD_NUMBER: _ClassVar[int]
    BLEU_FIELD_NUMBER: _ClassVar[int]
    ROUGE_L_FIELD_NUMBER: _ClassVar[int]
    id: str
    group: str
    attempts: int
    problem: str
    criteria: _containers.ScalarMap[str, float]
    overall: float
    judge_overall: float
    off_grid: _containers.RepeatedScalarFieldContainer[str]
    bleu: float
    rouge_l: float
    def __init__(self, id: _Optional[str] = ..., group: _Optional[str] = ..., attempts: _Optional[int] = ..., problem: _Optional[str] = ..., criteria: _Optional[_Mapping[str, float]] = ..., overall: _Optional[float] = ..., judge_overall: _Optional[float] = ..., off_grid: _Optional[_Iterable[str]] = ..., bleu: _Optional[float] = ..., rouge_l: _Optional[float] = ...) -> None: ...

class ScoreStats(_message.Message):
    __slots__ = ("n", "mean", "std", "min", "max")
    N_FIELD_NUMBER: _ClassVar[int]
    MEAN_FIELD_NUMBER: _ClassVar[int]
    STD_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    n: int
    mean: float
    std: float
    min: float
    max: float
    def __init__(self, n: _Optional[int] = ..., mean: _Optional[float] = ..., std: _Optional[float] = ..., min: _Optional[float] = ..., max: _Optional[float] = ...) -> None: ...

class JudgeRecipesResponse(_message.Message):
    __slots__ = ("judgements", "scored", "malformed", "retried", "overall", "report_json", "usage")
    JUDGEMENTS_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    MALFORMED_FIELD_NUMBER: _ClassVar[int]
    RETRIED_FIELD_NUMBER: _ClassVar[int]
    OVERALL_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    judgements: _containers.RepeatedCompositeFieldContainer[RecipeJudgement]
    scored: int
    malformed: int
    retried: int
    overall: ScoreStats
    report_json: str
    usage: LLMUsage
    def __init__(self, judgements: _Optional[_Iterable[_Union[RecipeJudgement, _Mapping]]] = ..., scored: _Optional[int] = ..., malformed: _Optional[int] = ..., retried: _Optional[int] = ..., overall: _Optional[_Union[ScoreStats, _Mapping]] = ..., report_json: _Optional[str] = ..., usage: _Optional[_Union[LLMUsage, _Mapping]] = ...) -> None: ...
