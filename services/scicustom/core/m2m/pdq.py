"""Problem Decomposition Quality: root-cause compression, failure-mode specificity, problem-type
consistency and component granularity.

Reference behaviour kept: the compression ratio is words(problem_core) / (words(problem) + 1), tested in
the order [0.15, 0.5] → 1.0, < 0.05 → 0.3, > 0.8 → 0.4, else 0.7 (under parity an empty problem_core is
"nan", one word); component granularity is min(1, 0.4 × hits + (0.2 if more than 5 characters)), where
the paper writes 0.4 for more than one word.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.text_primitives import TermMatcher, jaccard, keep_above, keep_below

SUB_SCORES = ("pdq_core_specificity", "pdq_failure_specificity", "pdq_type_consistency",
              "pdq_component_granularity")


def core_specificity(ratio: float, p: Mapping[str, float]) -> float:
    if p["core_ratio_good_min"] <= ratio <= p["core_ratio_good_max"]:
        return float(p["core_good"])
    if ratio < p["core_ratio_sparse_below"]:
        return float(p["core_sparse"])
    if ratio > p["core_ratio_padded_above"]:
        return float(p["core_padded"])
    return float(p["core_other"])


def score_pdq(texts: PreparedTexts, options: ScoringOptions) -> dict[str, np.ndarray]:
    vocabulary = texts.vocabulary
    params = vocabulary.pdq
    bounded = options.word_bounded_terms
    problem_words = [len(p.split()) + int(params["problem_words_plus"]) for p in texts.lower("problem_statement")]
    core_words = [len(c.split()) for c in texts.lower("problem_core")]
    core = np.array([core_specificity(c / p, params) for c, p in zip(core_words, problem_words, strict=True)])
    specific = TermMatcher(vocabulary.mechanism_high, bounded)
    vague = TermMatcher(vocabulary.vague_failure, bounded)
    failures = texts.lower("failure_mode_or_limitation")
    specific_hits = np.array([specific.count(f) for f in failures], dtype=np.float64)
    vague_hits = np.array([vague.count(f) for f in failures], dtype=np.float64)
    failure = keep_above(keep_below(params["failure_base"] + specific_hits * params["failure_per_specific"]
                                    - vague_hits * params["failure_per_vague"], 1.0), 0.0)
    broad, fine = texts.tokens("problem_type_broad"), texts.tokens("problem_type_fine")
    type_consistency = keep_above(np.array([jaccard(b, f) for b, f in zip(broad, fine, strict=True)]),
                                  params["type_consistency_floor"])
    components = TermMatcher(vocabulary.specific_components, bounded)
    component_texts = texts.lower("component")
    component_hits = np.array([components.count(c) for c in component_texts], dtype=np.float64)
    bonus = np.array([params["component_len_bonus"] if len(c) > params["component_len_min_chars_exclusive"] else 0.0
                      for c in component_texts])
    component = keep_below(component_hits * params["component_per_hit"] + bonus, 1.0)
    w = vocabulary.weights["pdq"]
    aggregate = (w["core_specificity"] * core + w["failure_specificity"] * failure
                 + w["type_consistency"] * type_consistency + w["component_granularity"] * component)
    return dict(zip((*SUB_SCORES, "pdq_aggregate"),
                    (core, failure, type_consistency, component, aggregate), strict=True))
