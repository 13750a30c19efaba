"""The constants and term lists of the M2M metrics, parsed from `m2m_vocabulary.json`.

The JSON records the reference release (BatteryHypoBench `benchmark.py`); lists keep their source order
because the reference stops at the first match in `ip_system_material_map` and the evidence map.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput


@dataclass(frozen=True)
class M2MVocabulary:
    mechanism_high: tuple[str, ...]
    mechanism_medium: tuple[str, ...]
    mechanism_low: tuple[str, ...]
    causal_patterns: tuple[re.Pattern[str], ...]
    quantity_patterns: tuple[re.Pattern[str], ...]
    characterization: tuple[str, ...]
    cross_domain: tuple[str, ...]
    system_materials: tuple[tuple[str, tuple[str, ...]], ...]
    scalable: tuple[str, ...]
    non_scalable: tuple[str, ...]
    evidence_levels: tuple[tuple[str, float], ...]
    outcome_quantity: re.Pattern[str]
    vague_failure: tuple[str, ...]
    specific_components: tuple[str, ...]
    text_columns: tuple[str, ...]
    step_pattern: re.Pattern[str]
    overlap_token: re.Pattern[str]
    tfidf_token: re.Pattern[str]
    tfidf_max_vocab: int
    top_k_corpus: int
    top_k_within_system: int
    top_k_intervention: int
    weights: Mapping[str, Mapping[str, float]]
    vocab_tier_weights: Mapping[str, float]
    vocab_multiplier: float
    rcf: Mapping[str, float]
    density_rise: Mapping[str, float]
    density_fall: Mapping[str, float]
    hpa: Mapping[str, float]
    msi: Mapping[str, float]
    sns: Mapping[str, Any]
    ip: Mapping[str, float]
    pdq: Mapping[str, float]
    decimals: int


def parse_vocabulary(data: Mapping[str, Any]) -> M2MVocabulary:
    """Build the vocabulary from the parsed JSON; a missing key is an InvalidInput naming it."""
    try:
        return _parse(data)
    except KeyError as exc:
        raise InvalidInput("m2m_vocabulary", f"missing key {exc.args[0]!r}") from exc


def _parse(data: Mapping[str, Any]) -> M2MVocabulary:
    material_map = data["ip_system_material_map"]
    evidence_map = data["ip_evidence_strength_map"]
    step_flags = 0
    for name in data["reasoning_step_regex_flags"]:
        step_flags |= getattr(re, name)
    tfidf = data["tfidf"]
    return M2MVocabulary(
        mechanism_high=tuple(data["mechanism_keywords_high"]),
        mechanism_medium=tuple(data["mechanism_keywords_medium"]),
        mechanism_low=tuple(data["mechanism_keywords_low"]),
        causal_patterns=tuple(re.compile(p) for p in data["hpa_causal_patterns"]),
        quantity_patterns=tuple(re.compile(p) for p in data["msi_quantity_unit_patterns"]),
        characterization=tuple(data["msi_characterization_techniques"]),
        cross_domain=tuple(data["sns_cross_domain_terms"]),
        system_materials=tuple((key, tuple(material_map[key])) for key in data["ip_system_material_map_order"]),
        scalable=tuple(data["ip_scalable_terms"]),
        non_scalable=tuple(data["ip_non_scalable_terms"]),
        evidence_levels=tuple((key, float(evidence_map[key])) for key in data["ip_evidence_strength_order"]),
        outcome_quantity=re.compile(data["ip_outcome_quantity_pattern"]),
        vague_failure=tuple(data["pdq_vague_failure_terms"]),
        # pdq's specific failure terms are mechanism_high ("pdq_specific_failure_terms" names that list).
        specific_components=tuple(data["pdq_specific_component_terms"]),
        text_columns=tuple(data["load_dataset_text_cols"]),
        step_pattern=re.compile(data["reasoning_step_pattern"], step_flags),
        overlap_token=re.compile(data["overlap_token_pattern"]),
        tfidf_token=re.compile(tfidf["token_pattern"]),
        tfidf_max_vocab=int(tfidf["max_vocab"]),
        top_k_corpus=int(data["sns_top_k"]["corpus"]),
        top_k_within_system=int(data["sns_top_k"]["within_battery_system"]),
        top_k_intervention=int(data["sns_top_k"]["intervention"]),
        weights=data["weights"],
        vocab_tier_weights=data["msi_vocab_tier_weights"],
        vocab_multiplier=float(data["msi_vocab_multiplier"]),
        rcf=data["rcf_params"],
        density_rise=data["sigmoid"]["rcf_density_rise"],
        density_fall=data["sigmoid"]["rcf_density_fall"],
        hpa=data["hpa_params"],
        msi=data["msi_params"],
        sns=data["sns_params"],
        ip=data["ip_params"],
        pdq=data["pdq_params"],
        decimals=int(data["rounding"]["decimals"]),
    )
