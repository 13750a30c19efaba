"""Local SmolLM2 log-likelihood MCQ scoring: items/s batched vs one item at a time.

Run: `python benchmarks/bench_evaluation.py [N_ITEMS] [BATCH]`. Both scoring modes are measured
on the same generated MCQs in the same run; the ratio batched / unbatched is the figure.
"""

from __future__ import annotations

import os
import sys
import time

from scicustom.adapters.causal_lm_mcq_scorer import CausalLMMCQScorer
from scicustom.adapters.packaged_models import load_smollm
from scicustom.config import Settings
from scicustom.core.evaluation.benchmark_lines import MCQItem, parse_item
from scicustom.core.evaluation.model_spec import Scoring

ELEMENTS = [("hydrogen", "1"), ("helium", "2"), ("lithium", "3"), ("carbon", "6"), ("nitrogen", "7"),
            ("oxygen", "8"), ("sodium", "11"), ("chlorine", "17"), ("iron", "26"), ("gold", "79")]


def make_items(n: int) -> list[MCQItem]:
    """Questions of varied length (so batches need padding), four options each."""
    items = []
    for i in range(n):
        name, number = ELEMENTS[i % len(ELEMENTS)]
        wrong = [e[1] for e in ELEMENTS if e[1] != number][i % 7: i % 7 + 3]
        options = [*wrong[:i % 4], number, *wrong[i % 4:]]
        context = " In the periodic table, elements are ordered by this number." * (i % 5)
        query = f"What is the atomic number of {name}?{context}\n" + "\n".join(
            f"{label}. {text}" for label, text in zip("ABCD", options, strict=True))
        items.append(parse_item({"id": str(i), "query": query, "answer": "ABCD"[i % 4]}, "bench"))
    return items


def items_per_s(scorer: CausalLMMCQScorer, items: list[MCQItem]) -> float:
    start = time.perf_counter()
    for i in range(0, len(items), scorer.batch_size):
        scorer.answer_batch(items[i:i + scorer.batch_size])
    return len(items) / (time.perf_counter() - start)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    loaded = load_smollm(Settings().model_cache)
    items = make_items(n)
    print(f"cpu_count={os.cpu_count()} items={n} batch={batch} model=SmolLM2-135M")
    modes: tuple[Scoring, ...] = ("label", "text")
    for scoring in modes:
        def scorer(size: int, scoring: Scoring = scoring) -> CausalLMMCQScorer:
            return CausalLMMCQScorer("smollm2", "smollm2", lambda: loaded, scoring=scoring, batch_size=size)

        items_per_s(scorer(batch), items[:batch])  # warm-up
        unbatched = items_per_s(scorer(1), items)
        batched = items_per_s(scorer(batch), items)
        print(f"{scoring:>5} scoring: unbatched {unbatched:7.2f} items/s | batched {batched:7.2f} items/s "
              f"| ratio {batched / unbatched:.2f}x")


if __name__ == "__main__":
    main()
