"""Predicting a recipe from its key contributions X, with the top-K retrieved recipes as references
(AlchemyBench section 5.1, K in {0, 1, 5, 10, 25}; Figure 13 prompt). With K = 0 the references are
empty, or the one fixed one-shot example of the paper's base setting.

Every target is predicted: the released code returns after its first batch (a `break` in the batch
loop), which silently drops the rest of the test set; batches here only bound concurrency.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from scicustom.core.alchemy.prompts import PREDICTION_PROMPT
from scicustom.core.alchemy.retrieval import LibraryRecipe, RecipeLibrary, Retrieved
from scicustom.ports import LLM

PAPER_TOP_K = (0, 1, 5, 10, 25)
PREDICTION_PARAMS: Mapping[str, Any] = {"temperature": 0, "max_tokens": 4096}  # Appendix C.1


@dataclass(frozen=True)
class PredictionTarget:
    id: str
    contribution: str
    recipe: str = ""  # ground truth, carried through for the judge


@dataclass(frozen=True)
class Prediction:
    target: PredictionTarget
    prediction: str
    references: tuple[Retrieved, ...]


def format_references(references: Sequence[LibraryRecipe]) -> str:
    return "\n\n".join(f"# Reference {i}:\n{r.contribution}\n\n{r.recipe}"
                       for i, r in enumerate(references, 1))


def prediction_prompt(contribution: str, references: Sequence[LibraryRecipe]) -> str:
    return PREDICTION_PROMPT.replace("{references}", format_references(references)).replace(
        "{contributions}", contribution)


class RecipePredictor:
    def __init__(self, llm: LLM, model: str, *, library: RecipeLibrary | None = None, top_k: int = 0,
                 one_shot: LibraryRecipe | None = None) -> None:
        if top_k < 0:
            raise ValueError("top_k must be >= 0")
        if top_k > 0 and library is None:
            raise ValueError("top_k > 0 needs a recipe library")
        self._llm = llm
        self._model = model
        self._library = library
        self._top_k = top_k
        self._one_shot = one_shot

    def predict_all(self, targets: Sequence[PredictionTarget], batch_size: int = 8) -> list[Prediction]:
        """Predictions for every target, in order; `batch_size` predictions run at a time."""
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        results: list[Prediction] = []
        with ThreadPoolExecutor(max_workers=batch_size) as pool:
            for start in range(0, len(targets), batch_size):
                batch = targets[start:start + batch_size]
                if self._library is not None and self._top_k > 0:
                    retrieved = self._library.top_k_many([(t.id, t.contribution) for t in batch], self._top_k)
                else:
                    retrieved = [[] for _ in batch]
                results.extend(pool.map(self._predict_one, batch, retrieved))
        return results

    def _predict_one(self, target: PredictionTarget, retrieved: list[Retrieved]) -> Prediction:
        references = [r.recipe for r in retrieved] or ([self._one_shot] if self._one_shot else [])
        prompt = prediction_prompt(target.contribution, references)
        messages = [{"role": "user", "content": prompt}]
        text = self._llm.complete(self._model, messages, **PREDICTION_PARAMS).text
        return Prediction(target=target, prediction=text, references=tuple(retrieved))
