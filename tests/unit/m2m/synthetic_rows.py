"""Deterministic, realistic M2M input rows (battery hypotheses with reasoning steps) for tests and the
benchmark: vocabulary terms, quantities with ASCII and Unicode units, empty fields, repeated systems."""

from __future__ import annotations

import csv
import io
import json
import random

SYSTEMS = ["NMC811 cathode", "LFP", "lithium metal anode", "silicon anode", "solid state battery",
           "NCA", "sodium-ion", "Li-S", "lithium-ion battery", "zinc-ion", "Li-O2", "LiCoO2 cathode",
           "graphite anode", "garnet solid electrolyte", "NMC", "lithium-ion battery", "LFP", "LFP"]
COMPONENTS = ["cathode", "anode", "electrolyte", "separator", "current collector", "binder", "SEI",
              "cathode-electrolyte interface", "active material particle", "cell", "", "grain boundary"]
EVIDENCE = ["strong", "moderate", "Strong experimental", "weak", "unknown", "preliminary", "theoretical",
            "moderate to strong", "", "High"]
BROAD = ["Mass transport and manufacturing control", "Electrolyte degradation and interfacial chemistry",
         "Structural instability and phase transformation", "Thermal management and safety",
         "Electrochemical kinetics and rate capability"]
FINE = ["thermal etching", "SEI growth", "lithium plating at high C-rate", "oxygen release",
        "particle cracking", "interfacial charge transfer resistance", "transition metal dissolution"]
_WORD_TEXT = """
lithium ion transport cathode anode electrolyte interface particle coating doping capacity fade
cycle life diffusion kinetics structure layered oxide olivine phosphate dendrite plating
stripping porosity tortuosity morphology nanostructure composite binder separator voltage
hysteresis rate stability degradation mechanism surface bulk grain boundary crack strain volume
expansion silicon graphite carbon conductivity impedance resistance temperature thermal safety
gas evolution oxygen release transition metal dissolution spinel rocksalt lattice parameter
formation energy charge transfer overpotential current density electrode slurry calendering
solvent salt additive fluorinated ether carbonate polymer ceramic garnet sulfide halide
interphase passivation
"""
WORDS = _WORD_TEXT.split()
JARGON = ["solid electrolyte interphase", "Butler-Volmer", "operando XRD", "cryo-TEM", "DFT", "EIS",
          "Jahn-Teller distortion", "Coulombic efficiency", "GITT", "synchrotron", "machine learning",
          "biomass-derived carbon", "MOF", "scalable", "low-cost", "roll-to-roll", "atomic layer deposition",
          "ionic conductivity", "capacity retention", "XPS", "Raman", "SEM"]
CONNECTORS = ["thereby", "thus", "leading to", "resulting in", "which enables", "by increasing",
              "enhancing", "reducing", "improving", "will enable", "provides", "allows", "facilitates"]
# A long tail of rarer content words, so the TF-IDF vocabulary fills its 2,000 terms as real text does.
_SYLLABLES = ["ano", "bi", "cal", "dri", "fer", "gal", "hy", "lith", "mor", "nic", "ox", "pol", "sul", "tran",
              "vor", "zir", "quin", "ret", "sta", "mel"]
RARE_WORDS = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in ("ide", "ate", "ic", "ous", "ation",
                                                                         "ene", "ite", "al", "ium", "ine")]
UNITS = ["nm", "µm", "μm", "mm", "°C", "℃", "K", "eV", "mAh g⁻¹", "mAh", "Wh kg-1", "V", "mV", "mA cm-2",
         "%", "mg cm-2", "mol", "× 10⁻³", "x 10-4 S cm-1", "fold"]
FIELDS = ["paper_id", "problem_statement", "problem_core", "hypothesis", "reasoning_process",
          "num_reasoning_steps", "mechanism_or_rationale", "intervention_or_solution", "claimed_outcome",
          "target_property", "novelty_axis", "battery_system", "component", "failure_mode_or_limitation",
          "keywords", "evidence_strength", "problem_type_broad", "problem_type_fine"]


def _sentence(rng: random.Random, words: int) -> str:
    parts: list[str] = []
    while len(parts) < words:
        roll = rng.random()
        if roll < 0.02:
            parts.append(rng.choice(JARGON))
        elif roll < 0.035:
            parts.append(rng.choice(CONNECTORS))
        elif roll < 0.06:
            parts.append(f"{rng.choice([1, 5, 12, 25, 80, 150, 3.7, 4.2, 0.5])} {rng.choice(UNITS)}")
        elif roll < 0.25:
            parts.append(rng.choice(RARE_WORDS))
        else:
            parts.append(rng.choice(WORDS))
    text = " ".join(parts)
    return text[0].upper() + text[1:] + "."


def synthetic_row(rng: random.Random, index: int) -> dict[str, str]:
    steps = rng.choice([0, 1, 3, 4, 5, 5, 5, 6, 7])
    reasoning = "\n".join(f"[Begin Step {k}] {_sentence(rng, rng.randint(15, 100))} [End Step {k}]"
                          for k in range(1, steps + 1))
    if steps == 0 and rng.random() < 0.5:
        reasoning = _sentence(rng, 60)
    problem = " ".join(_sentence(rng, rng.randint(12, 30)) for _ in range(rng.randint(2, 5)))
    return {
        "paper_id": f"10.1000/m2m.{index:05d}",
        "problem_statement": problem,
        "problem_core": "" if rng.random() < 0.1 else _sentence(rng, rng.randint(3, 40)),
        "hypothesis": _sentence(rng, rng.randint(25, 80)),
        "reasoning_process": reasoning,
        "num_reasoning_steps": str(steps),
        "mechanism_or_rationale": "" if rng.random() < 0.05 else _sentence(rng, rng.randint(20, 140)),
        "intervention_or_solution": "" if rng.random() < 0.05 else _sentence(rng, rng.randint(3, 40)),
        "claimed_outcome": _sentence(rng, rng.randint(4, 30)),
        "target_property": "" if rng.random() < 0.1 else _sentence(rng, rng.randint(1, 8)),
        "novelty_axis": _sentence(rng, 6),
        "battery_system": rng.choice(SYSTEMS),
        "component": rng.choice(COMPONENTS),
        "failure_mode_or_limitation": "" if rng.random() < 0.08 else _sentence(rng, rng.randint(3, 25)),
        "keywords": "; ".join(rng.sample(WORDS, 5)),
        "evidence_strength": rng.choice(EVIDENCE),
        "problem_type_broad": rng.choice(BROAD),
        "problem_type_fine": rng.choice(FINE),
    }


def synthetic_rows(count: int, seed: int = 2645) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [synthetic_row(rng, i) for i in range(count)]


def rows_to_csv(rows: list[dict[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def rows_to_jsonl(rows: list[dict[str, str | None]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
