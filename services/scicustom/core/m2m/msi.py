"""Mechanistic Specificity Index: vocabulary tiers, quantities with units, characterisation techniques
and the mechanism-to-hypothesis length ratio, over hypothesis + " " + mechanism + " " + reasoning.

Terms match as lower-case substrings (reference) or word-bounded (`word_bounded_terms`). The tier score
is min(1, (3h + 1.5m + 0.5l) / (3|H| + 1.5|M| + 0.5|L|) × 3) with the list lengths of the vocabulary
file (46/24/15, where the paper says 44/23/13).
"""

from __future__ import annotations

import numpy as np

from scicustom.core.m2m.pattern_hits import PatternMatcher
from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.term_presence import TermPresence
from scicustom.core.m2m.text_primitives import keep_below

SUB_SCORES = ("msi_vocab_tier", "msi_quantitative", "msi_characterization", "msi_mechanism_depth")


def unicode_unit_text(text: str) -> str:
    """Greek mu as the micro sign and the degree-Celsius sign as "°c", which the unit patterns spell."""
    return text.replace("\u03bc", "\u00b5").replace("\u2103", "\u00b0c")


def score_msi(texts: PreparedTexts, options: ScoringOptions) -> dict[str, np.ndarray]:
    vocabulary = texts.vocabulary
    params = vocabulary.msi
    lists = (vocabulary.mechanism_high, vocabulary.mechanism_medium, vocabulary.mechanism_low,
             vocabulary.characterization)
    presence = TermPresence(list(dict.fromkeys(t for terms in lists for t in terms)), options.word_bounded_terms)
    hypotheses, mechanisms = texts.lower("hypothesis"), texts.lower("mechanism_or_rationale")
    combined = [f"{h} {m} {r}" for h, m, r in zip(hypotheses, mechanisms, texts.lower("reasoning_process"),
                                                    strict=True)]
    # The word runs of the joined text are those of its three parts: " " cannot join two runs.
    runs = [(h, m, *r) for h, m, r in zip(texts.tokens("hypothesis"), texts.tokens("mechanism_or_rationale"),
                                          texts.reasoning_runs(), strict=True)]
    high_hits, medium_hits, low_hits, technique_hits = presence.counts(combined, runs, lists)
    tiers = vocabulary.vocab_tier_weights
    numerator = tiers["high"] * high_hits + tiers["medium"] * medium_hits + tiers["low"] * low_hits
    denominator = (tiers["high"] * len(vocabulary.mechanism_high) + tiers["medium"] * len(vocabulary.mechanism_medium)
                   + tiers["low"] * len(vocabulary.mechanism_low))
    vocab = keep_below(numerator / denominator * vocabulary.vocab_multiplier, 1.0)
    unit_texts = [unicode_unit_text(c) for c in combined] if options.unicode_units else combined
    quantities = PatternMatcher(vocabulary.quantity_patterns)
    quantity_hits = np.array([quantities.count(c) for c in unit_texts], dtype=np.float64)
    quantitative = keep_below(quantity_hits / params["quantitative_hits_divisor"], 1.0)
    characterization = keep_below(technique_hits / params["characterization_hits_divisor"], 1.0)
    hypothesis_words = np.array([len(h.split()) for h in hypotheses], dtype=np.float64) + params["depth_hyp_words_plus"]
    mechanism_words = np.array([len(m.split()) for m in mechanisms], dtype=np.float64)
    depth = keep_below(mechanism_words / (hypothesis_words * params["depth_factor"]), 1.0)
    w = vocabulary.weights["msi"]
    aggregate = (w["vocab_tier"] * vocab + w["quantitative"] * quantitative
                 + w["characterization"] * characterization + w["mechanism_depth"] * depth)
    return {"msi_vocab_tier": vocab, "msi_quantitative": quantitative, "msi_characterization": characterization,
            "msi_mechanism_depth": depth, "msi_aggregate": aggregate,
            "msi_high_kw_count": high_hits, "msi_medium_kw_count": medium_hits}
