"""Intervention Plausibility: specification length, material compatibility with the battery system,
scalability language, evidence strength and outcome specificity.

Reference behaviour kept: compatibility uses the first system key (map order) contained in the battery
system and counts that family's constituents in intervention + mechanism + hypothesis; scalability is
max(0, min(1, 0.3 + 0.15 s) - 0.2 n) (the paper writes the clamp around the whole sum); the evidence
label takes the first key of the map order contained in it ("moderate to strong" scores as strong).
"""

from __future__ import annotations

import numpy as np

from scicustom.core.m2m.msi import unicode_unit_text
from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.term_presence import TermPresence
from scicustom.core.m2m.text_primitives import TermMatcher, keep_above, keep_below

SUB_SCORES = ("ip_consistency", "ip_material_compatibility", "ip_scalability", "ip_evidence_grounding",
              "ip_outcome_specificity")


def score_ip(texts: PreparedTexts, options: ScoringOptions) -> dict[str, np.ndarray]:
    vocabulary = texts.vocabulary
    params = vocabulary.ip
    bounded = options.word_bounded_terms
    interventions = texts.lower("intervention_or_solution")
    combined = [f"{i} {m} {h}" for i, m, h in zip(interventions, texts.lower("mechanism_or_rationale"),
                                                    texts.lower("hypothesis"), strict=True)]
    consistency = np.array([params["consistency_pass"] if len(i.split()) > params["consistency_min_words_exclusive"]
                            else params["consistency_fail"] for i in interventions])
    families = [found for _, found in vocabulary.system_materials]
    presence = TermPresence(
        list(dict.fromkeys([*(t for found in families for t in found), *vocabulary.scalable,
                            *vocabulary.non_scalable])), bounded)
    runs = list(zip(texts.tokens("intervention_or_solution"), texts.tokens("mechanism_or_rationale"),
                    texts.tokens("hypothesis"), strict=True))
    *family_hits, scale_hits, non_scale_hits = presence.counts(
        combined, runs, [*families, vocabulary.scalable, vocabulary.non_scalable])
    # System keys and evidence labels stay substring tests in every mode: "nmc" must find "nmc811".
    systems = TermMatcher([key for key, _ in vocabulary.system_materials], False)
    compatibility = np.full(len(texts), params["compatibility_default"])
    for row, system in enumerate(texts.lower("battery_system")):
        family = systems.first(system)
        if family is not None:
            hits = int(family_hits[family][row])
            compatibility[row] = min(1.0, params["compatibility_default"] + hits * params["compatibility_per_hit"])
    scalability = keep_above(
        keep_below(params["scalability_base"] + scale_hits * params["scalability_per_hit"], 1.0)
        - non_scale_hits * params["non_scalable_penalty"], 0.0)
    levels = TermMatcher([label for label, _ in vocabulary.evidence_levels], False)
    evidence = np.full(len(texts), params["evidence_default"])
    for row, label in enumerate(texts.lower("evidence_strength")):
        level = levels.first(label)
        if level is not None:
            evidence[row] = vocabulary.evidence_levels[level][1]
    outcomes = texts.lower("claimed_outcome")
    unit_outcomes = [unicode_unit_text(o) for o in outcomes] if options.unicode_units else outcomes
    outcome = np.array([
        params["outcome_quantitative"] if vocabulary.outcome_quantity.search(u)
        else params["outcome_long"] if len(o.split()) > params["outcome_long_min_words_exclusive"]
        else params["outcome_short"] for o, u in zip(outcomes, unit_outcomes, strict=True)])
    w = vocabulary.weights["ip"]
    aggregate = (w["consistency"] * consistency + w["material_compatibility"] * compatibility
                 + w["scalability"] * scalability + w["evidence_grounding"] * evidence
                 + w["outcome_specificity"] * outcome)
    return dict(zip((*SUB_SCORES, "ip_aggregate"),
                    (consistency, compatibility, scalability, evidence, outcome, aggregate), strict=True))
