"""`scicustom tagger train | eval` as requests: their limits, and the inputs they read from the corpus."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scicustom.app.ingest.item_embeddings import item_embeddings
from scicustom.app.tagging.gold_items import packaged_gold_items
from scicustom.app.tagging.tagger_training import TrainingInputs, TrainingResult, evaluate_artifact, train
from scicustom.core.errors import InvalidInput
from scicustom.core.progress import Progress, no_progress
from scicustom.core.tagger_training.data_plan import DataPlan
from scicustom.core.tagger_training.dataset import QueryWriter
from scicustom.core.tagger_training.llm_writer import LLMQueryWriter
from scicustom.core.tagger_training.train_config import TrainConfig
from scicustom.core.tagger_training.vector_head import DEFAULT_BLEND, MAX_BLEND
from scicustom.core.units import UnitCatalog
from scicustom.ports import LLM, CorpusRepository, Embedder, TaggerArtifacts, TaggerTrainer

UnitSet = Callable[[], tuple[UnitCatalog, str]]  # the catalog the tagger learns and where it came from


@dataclass(frozen=True)
class TrainRequest:
    synthetic: int = 160000         # synthetic training queries
    epochs: int = 6
    keyword_heldout: float = 0.0    # share of each K_v kept for the test queries only
    seed: int = 0
    llm_model: str | None = None    # write the synthetic queries with this model (the paper's prompt)
    keep_current: bool = False      # do not make the new version the current one
    head_blend: float = DEFAULT_BLEND  # the sentence-vector head's weight; 0: none

    def check(self) -> None:
        if self.synthetic < 1 or self.epochs < 1 or not 0.0 <= self.keyword_heldout < 1.0:
            raise InvalidInput("tagger train", "--synthetic and --epochs must be >= 1, --keyword-heldout in [0, 1)")
        if not 0.0 <= self.head_blend <= MAX_BLEND:
            raise InvalidInput("--head-blend", f"must be in [0, {MAX_BLEND:g}], got {self.head_blend:g}")


def training_inputs(units: UnitSet, corpus: CorpusRepository, embedder: Embedder,
                    writer: QueryWriter | None = None) -> TrainingInputs:
    """The unit set, the corpus items and their embeddings (computed where missing)."""
    catalog, source = units()
    items = corpus.load_items()
    if not items:
        raise InvalidInput("corpus", "the corpus is empty; run `scicustom corpus import` first")
    vectors, _, _ = item_embeddings(corpus, embedder, items)
    return TrainingInputs(catalog=catalog, items=items, item_vectors=vectors, embedder=embedder,
                          units_source=source, writer=writer, gold=packaged_gold_items(catalog))


def train_tagger(request: TrainRequest, units: UnitSet, corpus: CorpusRepository, embedder: Embedder,
                 trainer: TaggerTrainer, artifacts: TaggerArtifacts, llm: Callable[[], LLM],
                 progress: Progress = no_progress) -> TrainingResult:
    """`tagger train`; `llm` is asked for only when the request names a model."""
    request.check()
    writer = LLMQueryWriter(llm(), request.llm_model) if request.llm_model else None
    inputs = training_inputs(units, corpus, embedder, writer)
    plan = DataPlan(synthetic=request.synthetic, keyword_heldout=request.keyword_heldout, seed=request.seed)
    config = TrainConfig(epochs=request.epochs, seed=request.seed, head_blend=request.head_blend)
    return train(inputs, trainer, artifacts, plan, config,
                 make_current=not request.keep_current, progress=progress)


def evaluate_tagger(version: str | None, units: UnitSet, corpus: CorpusRepository, embedder: Embedder,
                    artifacts: TaggerArtifacts) -> dict[str, Any]:
    """`tagger eval` of a trained version (default: the current one) on the unit set it was trained on."""
    artifacts.directory(version)  # no trained tagger: say so before reading the corpus
    try:
        # As the command always did: any ValueError on the way (a bad unit file too) is the unit set's.
        inputs = training_inputs(units, corpus, embedder)
        return evaluate_artifact(inputs, artifacts, artifacts.load(version))
    except ValueError as exc:
        raise InvalidInput("--units", str(exc)) from None

