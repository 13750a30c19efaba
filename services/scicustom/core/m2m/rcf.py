"""Reasoning Chain Fidelity: progression, convergence, non-redundancy and density of the reasoning steps.

Steps are the stripped, non-empty captures of the DOTALL step regex (`num_reasoning_steps` is ignored).
With no step every sub-score is 0.0; with one, progression is 0.5 and non-redundancy 1.0. Means are
exact (`statistics.mean`), the density sigmoids use `math.exp`, as the reference does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.text_primitives import exact_mean, jaccard

SUB_SCORES = ("rcf_progression", "rcf_convergence", "rcf_nonredundancy", "rcf_density")


def density(mean_words: float, rise: Mapping[str, float], fall: Mapping[str, float]) -> float:
    low = 1.0 / (1.0 + math.exp(-rise["slope"] * (mean_words - rise["center_words"])))
    value = min(low, 1.0 - 1.0 / (1.0 + math.exp(-fall["slope"] * (mean_words - fall["center_words"]))))
    return max(0.0, value)


def score_rcf(texts: PreparedTexts) -> dict[str, np.ndarray]:
    """Unrounded sub-scores, the aggregate and the step count of every row."""
    vocabulary = texts.vocabulary
    params = vocabulary.rcf
    target, width = params["progression_target_overlap"], params["progression_width"]
    hypotheses = texts.tokens("hypothesis")
    n_rows = len(texts)
    columns = {name: np.zeros(n_rows) for name in SUB_SCORES}
    steps_count = np.zeros(n_rows, dtype=np.int64)
    for row, (steps, tokens) in enumerate(zip(texts.steps(), texts.step_tokens(), strict=True)):
        n = len(steps)
        steps_count[row] = n
        if n == 0:
            continue  # every sub-score stays 0.0
        if n > 1:
            progression = [1.0 - abs(jaccard(tokens[i], tokens[i + 1]) - target) / width for i in range(n - 1)]
            columns["rcf_progression"][row] = max(0.0, exact_mean(progression))
            pairs = [jaccard(tokens[i], tokens[j]) for i in range(n) for j in range(i + 1, n)]
            columns["rcf_nonredundancy"][row] = max(0.0, 1.0 - exact_mean(pairs))
        else:
            columns["rcf_progression"][row] = params["single_step_progression"]
            columns["rcf_nonredundancy"][row] = params["single_step_nonredundancy"]
        columns["rcf_convergence"][row] = jaccard(tokens[-1], hypotheses[row])
        mean_words = sum(len(s.split()) for s in steps) / n
        columns["rcf_density"][row] = density(mean_words, vocabulary.density_rise, vocabulary.density_fall)
    w = vocabulary.weights["rcf"]
    aggregate = (w["progression"] * columns["rcf_progression"] + w["convergence"] * columns["rcf_convergence"]
                 + w["nonredundancy"] * columns["rcf_nonredundancy"] + w["density"] * columns["rcf_density"])
    # Rows without steps score 0.0 everywhere, aggregate included (the reference returns literals there).
    aggregate = np.where(steps_count > 0, aggregate, 0.0)
    return {**columns, "rcf_aggregate": aggregate, "rcf_num_steps": steps_count}
