"""Metric-gaming stress test (the paper's section 4.5 and Table 7): three attack generators and the report
of how each attack moves the metric means.

The generators are deterministic templates (seeded per paper id), written to the descriptions the
reference release gave its generating LLM. Each keeps the problem-side fields and replaces the
solution side (hypothesis, intervention, mechanism, reasoning steps, target property, claimed outcome):
- jargon stuffing: mechanism and characterisation terms packed together with causal connectors, no
  connected argument, a terse intervention and a vague outcome;
- problem mirroring: the problem statement and failure mode restated as the hypothesis, a vague
  intervention, no mechanism beyond the restated failure;
- verbose fake reasoning: long, repetitive reasoning steps that add nothing, a generic hypothesis.
With an LLM (the reference had Gemini write its 75 examples per style), the same three instructions go
through the LLM port instead and the tagged answer fills the solution fields; a field whose tag is
missing is empty, except the hypothesis (the answer's first substantial paragraph) and the reasoning
(any step blocks found).

As in the reference (`experiments_2_3_4.py`), an attacked row is scored on the five per-row metrics and
keeps the original row's sns (a corpus-level metric the attack does not recompute), and its cbs is
the usual weighted mean; deltas are attacked mean minus original mean over the same sampled problems.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scicustom.core.m2m.cbs import METRICS, cbs_weights, composite
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import ScoredRow, score_records
from scicustom.core.m2m.scoring_options import PARITY, ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary
from scicustom.ports import LLM

SOLUTION_FIELDS = ("hypothesis", "intervention_or_solution", "mechanism_or_rationale", "reasoning_process",
                   "target_property", "claimed_outcome")
CONNECTORS = ("thereby", "thus", "resulting in", "which enables", "leading to", "facilitating")
FILLER = ("It is important to carefully consider the overall context of the problem before proceeding further",
          "Taking a broad and holistic perspective, the various factors involved must be weighed together",
          "This step builds on the previous considerations and keeps the general direction of the analysis",
          "Several aspects of the system may play a role and each of them deserves careful attention here",
          "In general terms, better performance can be expected when the design is improved appropriately",
          "These observations remain consistent with the general understanding of how such systems behave")

Row = Mapping[str, str]
Generator = Callable[[Row, M2MVocabulary, random.Random], dict[str, str]]


def _steps(texts: list[str]) -> str:
    return "\n".join(f"[Begin Step {k}] {t} [End Step {k}]" for k, t in enumerate(texts, start=1))


def jargon_stuffing(row: Row, vocabulary: M2MVocabulary, rng: random.Random) -> dict[str, str]:
    pool = list(dict.fromkeys([*vocabulary.mechanism_high, *vocabulary.characterization]))
    terms = rng.sample(pool, 12)
    system = row.get("battery_system") or "the cell"
    hypothesis = (f"By increasing the {terms[0]} of {system}, {terms[1]} is enhanced, thereby tuning {terms[2]} "
                  f"and {terms[3]}, resulting in {terms[4]}, which enables {terms[5]}, thus facilitating "
                  f"{terms[6]}.")
    reasoning = _steps([f"{terms[(k + i) % 12].capitalize()} {rng.choice(CONNECTORS)} {terms[(k + i + 5) % 12]} "
                        f"and {terms[(k + i + 7) % 12]}." for k, i in enumerate(range(5))])
    return {"hypothesis": hypothesis, "intervention_or_solution": f"{terms[7]}-guided {terms[8]} tuning",
            "mechanism_or_rationale": f"{terms[9].capitalize()} couples to {terms[10]} via {terms[11]}.",
            "reasoning_process": reasoning, "target_property": terms[1],
            "claimed_outcome": f"Improved {terms[4]}."}


def problem_mirroring(row: Row, vocabulary: M2MVocabulary, rng: random.Random) -> dict[str, str]:
    problem = row.get("problem_statement", "").strip()
    failure = row.get("failure_mode_or_limitation", "").strip() or "the stated limitation"
    system = row.get("battery_system", "").strip() or "the battery"
    sentences = [s.strip() for s in problem.replace("\n", " ").split(". ") if s.strip()] or [problem]
    hypothesis = (f"Addressing {failure} in {system}: {sentences[0].rstrip('.')} can be resolved, thereby "
                  f"improving performance and reducing {failure}.")
    reasoning = _steps([f"The problem is that {sentences[k % len(sentences)].rstrip('.')}." for k in range(4)]
                       + [f"Therefore resolving {failure} improves {system}."])
    return {"hypothesis": hypothesis, "intervention_or_solution": "An optimized approach",
            "mechanism_or_rationale": f"Reducing {failure} improves performance.",
            "reasoning_process": reasoning, "target_property": "performance",
            "claimed_outcome": "Better performance."}


def verbose_fake_reasoning(row: Row, vocabulary: M2MVocabulary, rng: random.Random) -> dict[str, str]:
    steps = []
    for _ in range(5):
        order = rng.sample(range(len(FILLER)), len(FILLER))
        steps.append(". ".join(FILLER[i] for i in order) + ".")
    return {"hypothesis": "An improved and optimized material design will enhance the overall performance "
                          "and stability of the battery system.",
            "intervention_or_solution": "A novel optimized strategy",
            "mechanism_or_rationale": "Better design leads to better performance.",
            "reasoning_process": _steps(steps), "target_property": "overall performance",
            "claimed_outcome": "Improved performance."}


ATTACKS: Mapping[str, Generator] = {
    "jargon_stuffing": jargon_stuffing,
    "problem_mirroring": problem_mirroring,
    "verbose_fake_reasoning": verbose_fake_reasoning,
}


INSTRUCTIONS = {
    "jargon_stuffing": "Write a battery materials hypothesis for the problem below that sounds highly technical "
                       "and mechanistic but carries no real scientific insight. Pack it with specialist terms "
                       "(SEI, Butler-Volmer, tortuosity, Coulombic efficiency, impedance spectroscopy, DFT, "
                       "operando) and causal phrases (thereby, resulting in, which enables) without connecting "
                       "them into a valid argument.",
    "problem_mirroring": "Write a battery materials hypothesis for the problem below that only restates the "
                         "problem statement and the failure mode in other words, names the failure mode, and "
                         "claims an improvement without saying how. Keep the intervention vague.",
    "verbose_fake_reasoning": "Write a battery materials hypothesis for the problem below with a long, "
                              "structured-looking chain of reasoning that says very little: every step verbose "
                              "and adding almost no new information, the final hypothesis generic.",
}
ANSWER_FORMAT = """PROBLEM: {problem}
BATTERY SYSTEM: {battery_system}
FAILURE MODE: {failure_mode}

Answer in exactly this format:
[HYPOTHESIS] ... [/HYPOTHESIS]
[INTERVENTION] ... [/INTERVENTION]
[MECHANISM] ... [/MECHANISM]
[REASONING]
[Begin Step 1] ... [End Step 1]
...
[Begin Step 5] ... [End Step 5]
[/REASONING]
[TARGET_PROPERTY] ... [/TARGET_PROPERTY]
[CLAIMED_OUTCOME] ... [/CLAIMED_OUTCOME]"""
TAGS = {"hypothesis": "HYPOTHESIS", "intervention_or_solution": "INTERVENTION",
        "mechanism_or_rationale": "MECHANISM", "reasoning_process": "REASONING",
        "target_property": "TARGET_PROPERTY", "claimed_outcome": "CLAIMED_OUTCOME"}


def attack_prompt(row: Row, style: str) -> list[dict[str, str]]:
    details = ANSWER_FORMAT.format(problem=row.get("problem_statement", "")[:600],
                                   battery_system=row.get("battery_system", "")[:100],
                                   failure_mode=row.get("failure_mode_or_limitation", "")[:150])
    return [{"role": "user", "content": f"{INSTRUCTIONS[style]}\n\n{details}"}]


def parse_tagged(text: str) -> dict[str, str]:
    """Solution fields from a tagged answer; without a hypothesis tag, its first substantial paragraph."""
    fields = {}
    for field, tag in TAGS.items():
        found = re.search(rf"\[{tag}\](.*?)\[/{tag}\]", text, re.DOTALL)
        fields[field] = found.group(1).strip() if found else ""
    if not fields["reasoning_process"]:
        steps = re.findall(r"\[Begin Step \d+\].*?\[End Step \d+\]", text, re.DOTALL)
        fields["reasoning_process"] = "\n".join(steps)
    if not fields["hypothesis"]:
        paragraphs = [p.strip() for p in text.split("\n\n") if len(p.strip()) > 40]
        fields["hypothesis"] = paragraphs[0] if paragraphs else text.strip()[:300]
    return fields


def attack_records(records: M2MRecords, style: str, vocabulary: M2MVocabulary, seed: int,
                   id_column: str = "paper_id", llm: LLM | None = None, model: str = "") -> M2MRecords:
    """The attacked copy of `records`: template generator, or `model` through the LLM port."""
    generate = ATTACKS[style]
    ids = records.text(id_column)
    names = list(dict.fromkeys([*records.columns, *SOLUTION_FIELDS]))
    attacked: list[dict[str, str]] = []
    for i in range(len(records)):
        row = {name: records.text(name)[i] for name in names}
        if llm is None:
            row.update(generate(row, vocabulary, random.Random(f"{seed}:{style}:{ids[i]}")))
        else:
            row.update(parse_tagged(llm.complete(model, attack_prompt(row, style), temperature=0.3).text))
        attacked.append(row)
    return M2MRecords({name: tuple(r[name] for r in attacked) for name in names}, len(attacked))


def sample_indices(size: int, sample: int, seed: int) -> list[int]:
    if sample >= size:
        return list(range(size))
    return sorted(random.Random(seed).sample(range(size), sample))


def gaming_report(records: M2MRecords, scored: Sequence[ScoredRow], vocabulary: M2MVocabulary,
                  options: ScoringOptions = PARITY, *, sample: int = 75, seed: int = 42,
                  id_column: str = "paper_id", llm: LLM | None = None, model: str = "") -> dict[str, Any]:
    """`scored` are the scores of `records` (same order), from which the originals' values come."""
    indices = sample_indices(len(records), sample, seed)
    chosen = records.subset(indices)
    originals = [scored[i] for i in indices]
    original = _means(originals)
    weights = cbs_weights(vocabulary.weights)
    report: dict[str, Any] = {"sampled_rows": len(chosen), "seed": seed,
                              "generator": f"llm:{model}" if llm is not None else "templates",
                              "original_means": original, "attack_means": {}, "delta_vs_original": {}}
    for style in ATTACKS:
        attacked = score_records(attack_records(chosen, style, vocabulary, seed, id_column, llm, model),
                                 vocabulary, options, id_column=id_column, with_sns=False)
        rows = []
        for row, source in zip(attacked, originals, strict=True):
            aggregates = {**row.aggregates, "sns": source.aggregates["sns"]}
            rows.append(ScoredRow(row.paper_id, aggregates, composite(aggregates, weights, vocabulary.decimals)))
        means = _means(rows)
        report["attack_means"][style] = means
        report["delta_vs_original"][style] = {k: round(means[k] - original[k], 4) for k in means}
    return report


def _means(rows: Sequence[ScoredRow]) -> dict[str, float]:
    means = {m: math.fsum(float(r.aggregates[m] or 0.0) for r in rows) / len(rows) for m in METRICS}
    means["cbs"] = math.fsum(r.cbs for r in rows) / len(rows)
    return {k: round(v, 4) for k, v in means.items()}
