"""SciIF rule audit and AlchemyBench ROUGE-L speed, each against a naive baseline run alongside.

1. SciIF rules-only audit (no judges) of synthetic answers with one shared pint registry and
   parse cache, against a naive verifier that builds its unit registry for every answer.
2. ROUGE-L on recipe-length texts: bit-parallel LCS against the textbook O(n*m) table.

Run: python benchmarks/bench_sciif_alchemy.py
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "services"))

import yaml  # noqa: E402

from scicustom.config import RESOURCES  # noqa: E402
from scicustom.core.sciif.audit import SciIFAuditor  # noqa: E402
from scicustom.core.sciif.catalog import parse_catalog  # noqa: E402
from scicustom.core.sciif.evidence_rules import RuleVerifier  # noqa: E402
from scicustom.core.sciif.final_answer import parse_targets  # noqa: E402
from scicustom.core.sciif.items import ModelAnswer, SciIFItem  # noqa: E402
from scicustom.core.sciif.quantities import UnitParser  # noqa: E402
from scicustom.core.text_overlap import lcs_length  # noqa: E402

ANSWER = """Plan: we assume steady state (∂c/∂t = 0), which makes Laplace's equation apply; if convection
were present the flux would need a Sherwood-number correction. Let c denote the concentration in mol m^-3,
where D = {d}×10^-9 m^2/s is the diffusivity and R = {r}×10^-6 m the radius.
The boundary conditions c(R) = 0 and c(∞) = C∞ fix the constants; substituting r = R gives c = 0, as required.
Substituting the data, k_on = 4π D R = 4π({d}×10^-9)({r}×10^-6) = {k}×10^-14 m^3 s^-1.
Unit check: [m^2/s]·[m] = [m^3/s].
The model holds for R ≫ the molecular radius; below it the continuum picture breaks down and k_on is overestimated.
With N_A = 6.022×10^23 mol^-1 this is {m} molecules per second per μM.

Final Answer: k_on = {k}×10^-14 m^3/s"""


def sciif_workload(n: int, catalog):  # type: ignore[no-untyped-def]
    rng = random.Random(1)
    names = ["Assumptions", "Boundary Conditions", "Applicability Range", "Units Standard",
             "Symbols & Constants Standardization", "Variable Naming Consistency"]
    items, answers = {}, []
    for i in range(n):
        d, r = rng.uniform(1, 3), rng.uniform(1, 5)
        k = 4 * 3.141592653589793 * d * r / 100
        item = SciIFItem(id=f"q{i}", question="Diffusion-limited uptake by a spherical cell.",
                         constraints=catalog.resolve_list(rng.sample(names, rng.randint(1, 5))),
                         targets=parse_targets({"value": k * 1e-14, "unit": "m^3/s"}))
        items[item.id] = item
        stated = k * 1.1 if i % 3 == 0 else k  # every third answer misstates its arithmetic
        text = ANSWER.format(d=f"{d:.2f}", r=f"{r:.2f}", k=f"{stated:.3f}", m=f"{k * 6.022e-2:.3g}")
        if i % 4 == 0:
            text = text.replace("Unit check: [m^2/s]·[m] = [m^3/s].", "")  # and every fourth omits it
        answers.append(ModelAnswer(item.id, "m", text))
    return items, answers


def bench_sciif() -> None:
    catalog = parse_catalog(yaml.safe_load((RESOURCES / "sciif" / "catalog.yaml").read_text(encoding="utf-8")))
    items, answers = sciif_workload(200, catalog)
    start = time.perf_counter()
    auditor = SciIFAuditor(catalog, RuleVerifier(UnitParser()))
    audits = auditor.audit_many(items, answers, workers=1)
    shared = time.perf_counter() - start
    naive_n = 10
    start = time.perf_counter()
    for answer in answers[:naive_n]:
        SciIFAuditor(catalog, RuleVerifier(UnitParser())).audit(items[answer.item_id], answer)
    naive = (time.perf_counter() - start) / naive_n * len(answers)
    decided = sum(1 for a in audits for c in a.constraints for p in c.points if p.decided_by == "rule")
    correct = sum(1 for a in audits if a.correctness.decided_by == "rule")
    print(f"sciif rules-only audit: {len(answers)} answers in {shared:.2f} s "
          f"({len(answers) / shared:.0f} answers/s; rules decided {decided} evidence points "
          f"and {correct} correctness verdicts)")
    print(f"  naive (registry per answer, extrapolated from {naive_n}): {naive:.2f} s; "
          f"speed-up {naive / shared:.1f}x")


def lcs_table(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def bench_rouge() -> None:
    rng = random.Random(2)
    vocabulary = [f"w{i}" for i in range(300)]
    pairs = [([rng.choice(vocabulary) for _ in range(400)], [rng.choice(vocabulary) for _ in range(450)])
             for _ in range(40)]
    start = time.perf_counter()
    fast = [lcs_length(a, b) for a, b in pairs]
    t_fast = time.perf_counter() - start
    start = time.perf_counter()
    slow = [lcs_table(a, b) for a, b in pairs]
    t_slow = time.perf_counter() - start
    assert fast == slow
    print(f"rouge-l lcs, {len(pairs)} pairs of ~400 x 450 tokens: bit-parallel {t_fast * 1000:.1f} ms, "
          f"table {t_slow * 1000:.0f} ms; speed-up {t_slow / t_fast:.0f}x")


def main() -> None:
    print(f"cpu_count: {os.cpu_count()}")
    bench_sciif()
    bench_rouge()


if __name__ == "__main__":
    main()
