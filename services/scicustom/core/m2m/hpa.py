"""Hypothesis-Problem Alignment: overlap of the hypothesis with the problem, failure mode and target,
causal connectors in the hypothesis, and intervention-mechanism coherence.

Reference defaults: an empty failure mode scores 0.8 × scope; an empty target property 0.5; an empty
intervention or mechanism 0.3. Under parity a missing target property is the string "nan" and is not
empty. Causal patterns run on the lower-cased hypothesis without DOTALL (`.` stops at a newline).
"""

from __future__ import annotations

import numpy as np

from scicustom.core.m2m.pattern_hits import PatternMatcher
from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.text_primitives import jaccard, keep_below

SUB_SCORES = ("hpa_scope_coverage", "hpa_failure_addressal", "hpa_target_coverage", "hpa_causal_language",
              "hpa_intervention_coherence")


def score_hpa(texts: PreparedTexts) -> dict[str, np.ndarray]:
    vocabulary = texts.vocabulary
    params = vocabulary.hpa
    hypothesis = texts.tokens("hypothesis")
    problem = texts.tokens("problem_statement")
    failure_text, failure = texts.lower("failure_mode_or_limitation"), texts.tokens("failure_mode_or_limitation")
    target_text, target = texts.lower("target_property"), texts.tokens("target_property")
    intervention_text, intervention = texts.lower("intervention_or_solution"), texts.tokens("intervention_or_solution")
    mechanism_text, mechanism = texts.lower("mechanism_or_rationale"), texts.tokens("mechanism_or_rationale")
    n = len(texts)
    scope = np.array([jaccard(problem[i], hypothesis[i]) for i in range(n)])
    failure_default = scope * params["failure_default_factor_of_scope"]
    failure_score = np.array([jaccard(failure[i], hypothesis[i]) if failure_text[i] else failure_default[i]
                              for i in range(n)])
    target_score = np.array([jaccard(target[i], hypothesis[i]) if target_text[i] else params["target_default"]
                             for i in range(n)])
    connectors = PatternMatcher(vocabulary.causal_patterns)
    hits = np.array([connectors.count(h) for h in texts.lower("hypothesis")],
                    dtype=np.float64)
    causal = keep_below(hits / params["causal_hits_divisor"], 1.0)
    coherence = np.array([
        jaccard(intervention[i], mechanism[i]) if intervention_text[i] and mechanism_text[i]
        else params["intervention_coherence_default"] for i in range(n)])
    w = vocabulary.weights["hpa"]
    aggregate = (w["scope_coverage"] * scope + w["failure_addressal"] * failure_score
                 + w["target_coverage"] * target_score + w["causal_language"] * causal
                 + w["intervention_coherence"] * coherence)
    return dict(zip((*SUB_SCORES, "hpa_aggregate"),
                    (scope, failure_score, target_score, causal, coherence, aggregate), strict=True))
