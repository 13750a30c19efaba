"""The parity oracle: a plain row-by-row implementation of the reference metrics.

It mirrors the reference release directly (per-row loops, `statistics.mean`, `re.findall` tokens,
substring tests, a Counter-built dense TF-IDF, `np.sort`) and shares nothing with the fast
implementation but the vocabulary constants. The tests and the benchmark compare both.
"""

from __future__ import annotations

import collections
import math
import re
import statistics
from typing import Any

import numpy as np

from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.vocabulary import M2MVocabulary

WORD = re.compile(r"\b\w+\b")
TFIDF = re.compile(r"\b[a-z]{3,}\b")


def overlap(a: str, b: str) -> float:
    ta, tb = set(WORD.findall(a.lower())), set(WORD.findall(b.lower()))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def rcf(row: dict[str, str], v: M2MVocabulary) -> dict[str, Any]:
    steps = [s.strip() for s in v.step_pattern.findall(row["reasoning_process"]) if s.strip()]
    n = len(steps)
    if n == 0:
        return {"rcf_progression": 0.0, "rcf_convergence": 0.0, "rcf_nonredundancy": 0.0, "rcf_density": 0.0,
                "rcf_aggregate": 0.0, "rcf_num_steps": 0}
    if n > 1:
        progression = max(0.0, statistics.mean(
            [1.0 - abs(overlap(steps[i], steps[i + 1]) - 0.25) / 0.75 for i in range(n - 1)]))
        nonredundancy = max(0.0, 1.0 - statistics.mean(
            [overlap(steps[i], steps[j]) for i in range(n) for j in range(i + 1, n)]))
    else:
        progression, nonredundancy = 0.5, 1.0
    convergence = overlap(steps[-1], row["hypothesis"])
    words = statistics.mean([len(s.split()) for s in steps])
    density = 1.0 / (1.0 + math.exp(-0.05 * (words - 40)))
    density = max(0.0, min(density, 1.0 - 1.0 / (1.0 + math.exp(-0.02 * (words - 150)))))
    aggregate = 0.3 * progression + 0.3 * convergence + 0.25 * nonredundancy + 0.15 * density
    return {"rcf_progression": round(progression, 4), "rcf_convergence": round(convergence, 4),
            "rcf_nonredundancy": round(nonredundancy, 4), "rcf_density": round(density, 4),
            "rcf_aggregate": round(aggregate, 4), "rcf_num_steps": n}


def hpa(row: dict[str, str], v: M2MVocabulary) -> dict[str, Any]:
    p, h, f = row["problem_statement"].lower(), row["hypothesis"].lower(), row["failure_mode_or_limitation"].lower()
    i, t = row["intervention_or_solution"].lower(), row["target_property"].lower()
    m = row["mechanism_or_rationale"].lower()
    scope = overlap(p, h)
    failure = overlap(f, h) if f else scope * 0.8
    target = overlap(t, h) if t else 0.5
    causal = min(1.0, sum(1 for c in v.causal_patterns if re.search(c.pattern, h)) / 4.0)
    coherence = overlap(i, m) if i and m else 0.3
    aggregate = 0.25 * scope + 0.25 * failure + 0.15 * target + 0.2 * causal + 0.15 * coherence
    return {"hpa_scope_coverage": round(scope, 4), "hpa_failure_addressal": round(failure, 4),
            "hpa_target_coverage": round(target, 4), "hpa_causal_language": round(causal, 4),
            "hpa_intervention_coherence": round(coherence, 4), "hpa_aggregate": round(aggregate, 4)}


def msi(row: dict[str, str], v: M2MVocabulary) -> dict[str, Any]:
    h, m = row["hypothesis"].lower(), row["mechanism_or_rationale"].lower()
    combined = h + " " + m + " " + row["reasoning_process"].lower()
    high = sum(1 for k in v.mechanism_high if k in combined)
    medium = sum(1 for k in v.mechanism_medium if k in combined)
    low = sum(1 for k in v.mechanism_low if k in combined)
    vocab = (3 * high + 1.5 * medium + 0.5 * low) / (
        3 * len(v.mechanism_high) + 1.5 * len(v.mechanism_medium) + 0.5 * len(v.mechanism_low))
    vocab = min(1.0, vocab * 3)
    quantitative = min(1.0, sum(1 for q in v.quantity_patterns if re.search(q.pattern, combined)) / 5.0)
    characterization = min(1.0, sum(1 for c in v.characterization if c in combined) / 4.0)
    depth = min(1.0, len(m.split()) / ((len(h.split()) + 1) * 3))
    aggregate = 0.35 * vocab + 0.25 * quantitative + 0.2 * characterization + 0.2 * depth
    return {"msi_vocab_tier": round(vocab, 4), "msi_quantitative": round(quantitative, 4),
            "msi_characterization": round(characterization, 4), "msi_mechanism_depth": round(depth, 4),
            "msi_aggregate": round(aggregate, 4), "msi_high_kw_count": high, "msi_medium_kw_count": medium}


def ip(row: dict[str, str], v: M2MVocabulary) -> dict[str, Any]:
    i, m, h = row["intervention_or_solution"].lower(), row["mechanism_or_rationale"].lower(), row["hypothesis"].lower()
    outcome, evidence_label = row["claimed_outcome"].lower(), row["evidence_strength"].lower()
    system = row["battery_system"].lower()
    combined = i + " " + m + " " + h
    consistency = 1.0 if len(i.split()) > 5 else 0.4
    compatibility = 0.5
    for key, materials in v.system_materials:
        if key in system:
            compatibility = min(1.0, 0.5 + sum(1 for x in materials if x in combined) * 0.1)
            break
    scalability = max(0.0, min(1.0, 0.3 + sum(1 for t in v.scalable if t in combined) * 0.15)
                      - sum(1 for t in v.non_scalable if t in combined) * 0.2)
    evidence = 0.35
    for key, value in v.evidence_levels:
        if key in evidence_label:
            evidence = value
            break
    quantitative = bool(re.search(v.outcome_quantity.pattern, outcome))
    specificity = 0.8 if quantitative else (0.6 if len(outcome.split()) > 10 else 0.3)
    aggregate = 0.2 * consistency + 0.2 * compatibility + 0.15 * scalability + 0.25 * evidence + 0.2 * specificity
    return {"ip_consistency": round(consistency, 4), "ip_material_compatibility": round(compatibility, 4),
            "ip_scalability": round(scalability, 4), "ip_evidence_grounding": round(evidence, 4),
            "ip_outcome_specificity": round(specificity, 4), "ip_aggregate": round(aggregate, 4)}


def pdq(row: dict[str, str], v: M2MVocabulary) -> dict[str, Any]:
    p, core = row["problem_statement"].lower(), row["problem_core"].lower()
    f, c = row["failure_mode_or_limitation"].lower(), row["component"].lower()
    ratio = len(core.split()) / (len(p.split()) + 1)
    if 0.15 <= ratio <= 0.5:
        core_score = 1.0
    elif ratio < 0.05:
        core_score = 0.3
    elif ratio > 0.8:
        core_score = 0.4
    else:
        core_score = 0.7
    specific = [k for k in v.mechanism_high if k in f]
    vague = sum(1 for x in v.vague_failure if x in f)
    failure = max(0.0, min(1.0, 0.3 + len(specific) * 0.2 - vague * 0.1))
    consistency = max(0.2, overlap(row["problem_type_broad"].lower(), row["problem_type_fine"].lower()))
    hits = sum(1 for x in v.specific_components if x in c)
    component = min(1.0, hits * 0.4 + (0.2 if len(c) > 5 else 0))
    aggregate = 0.3 * core_score + 0.3 * failure + 0.2 * consistency + 0.2 * component
    return {"pdq_core_specificity": round(core_score, 4), "pdq_failure_specificity": round(failure, 4),
            "pdq_type_consistency": round(consistency, 4), "pdq_component_granularity": round(component, 4),
            "pdq_aggregate": round(aggregate, 4)}


def tfidf(texts: list[str]) -> np.ndarray:
    tokenized = [TFIDF.findall(t.lower()) for t in texts]
    df: collections.Counter[str] = collections.Counter()
    for tokens in tokenized:
        df.update(set(tokens))
    vocab = [w for w, _ in df.most_common(2000)]
    index = {w: i for i, w in enumerate(vocab)}
    n = len(texts)
    idf = np.zeros(len(vocab))
    for w, count in df.items():
        if w in index:
            idf[index[w]] = math.log((n + 1) / (count + 1)) + 1.0
    matrix = np.zeros((n, len(vocab)))
    for i, tokens in enumerate(tokenized):
        tf = collections.Counter(tokens)
        total = sum(tf.values()) + 1e-9
        for w, count in tf.items():
            if w in index:
                matrix[i, index[w]] = (count / total) * idf[index[w]]
    return matrix / (np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-9)


def novelty(matrix: np.ndarray, k: int) -> np.ndarray:
    sim = matrix @ matrix.T
    np.fill_diagonal(sim, -1)
    return 1.0 - np.mean(np.maximum(np.sort(sim, axis=1)[:, -k:], 0), axis=1)


def sns(rows: list[dict[str, str]], has_system: bool, has_intervention: bool, v: M2MVocabulary) -> list[dict[str, Any]]:
    n = len(rows)
    hypotheses = [r["hypothesis"] for r in rows]
    matrix = tfidf(hypotheses)
    corpus = novelty(matrix, 5)
    systems = [r["battery_system"] for r in rows] if has_system else ["unknown"] * n
    within = np.ones(n)
    for system in set(systems):
        members = [i for i, s in enumerate(systems) if s == system]
        if len(members) > 1:
            part = novelty(matrix[members], 3)
            for j, i in enumerate(members):
                within[i] = part[j]
    cross = np.array([min(1.0, sum(1 for t in v.cross_domain if t in h.lower()) / 2.0) for h in hypotheses])
    if has_intervention:
        intervention = novelty(tfidf([r["intervention_or_solution"] for r in rows]), 3)
    else:
        intervention = np.ones(n) * 0.5
    aggregate = 0.4 * corpus + 0.25 * within + 0.2 * intervention + 0.15 * cross
    columns = {"sns_corpus_novelty": corpus, "sns_within_system_novelty": within,
               "sns_intervention_novelty": intervention, "sns_cross_domain_bonus": cross, "sns_aggregate": aggregate}
    rounded = {k: np.round(x, 4) for k, x in columns.items()}
    return [{k: float(x[i]) for k, x in rounded.items()} for i in range(n)]


def cbs(metrics: dict[str, float]) -> float:
    weights = {"rcf_aggregate": 0.20, "hpa_aggregate": 0.20, "msi_aggregate": 0.18, "sns_aggregate": 0.15,
               "ip_aggregate": 0.15, "pdq_aggregate": 0.12}
    score = total = 0.0
    for key, w in weights.items():
        if key in metrics:
            score += w * float(metrics[key])
            total += w
    return round(score / total if total > 0 else 0.0, 4)


def naive_scores(records: M2MRecords, v: M2MVocabulary, group_by: str | None = None) -> list[dict[str, Any]]:
    """{"paper_id", "scores": {reference column: value}, "cbs"} per row, like the reference's result frame."""
    rows = [{name: records.text(name)[i] for name in (*records.columns, *NEEDED)} for i in range(len(records))]
    results = []
    for row in rows:
        scores: dict[str, Any] = {}
        for metric in (rcf, hpa, msi, ip, pdq):
            scores.update(metric(row, v))
        results.append({"paper_id": row["paper_id"], "scores": scores})
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(row[group_by] if group_by else "", []).append(i)
    for members in groups.values():
        if group_by and len(members) < 5:
            continue
        part = sns([rows[i] for i in members], records.has("battery_system"),
                   records.has("intervention_or_solution"), v)
        for j, i in enumerate(members):
            results[i]["scores"].update(part[j])
    for result in results:
        result["cbs"] = cbs({k: x for k, x in result["scores"].items() if k.endswith("_aggregate")})
    return results


NEEDED = ("paper_id", "problem_statement", "problem_core", "hypothesis", "reasoning_process",
          "mechanism_or_rationale", "intervention_or_solution", "claimed_outcome", "target_property",
          "battery_system", "component", "failure_mode_or_limitation", "evidence_strength", "problem_type_broad",
          "problem_type_fine")
