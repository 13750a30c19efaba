"""Run one model over a benchmark: resume from saved progress, answer the rest concurrently,
save progress as answers arrive and once more on the way out (also when interrupted).

No call is repeated after a kill: answers saved in the progress store are not asked again, and
chat answers lost between two saves come back from the LLM port's response cache.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from scicustom.core.evaluation.benchmark_lines import MCQItem
from scicustom.core.evaluation.responses import ItemResponse, MCQAnswerer, ModelAnswer, ProgressStore


@dataclass
class ModelRun:
    name: str
    responses: list[ItemResponse]  # benchmark order; items that failed are missing
    errors: dict[str, str] = field(default_factory=dict)  # item id -> why its call failed
    resumed: int = 0  # responses taken from saved progress
    answered: int = 0  # responses obtained in this run


def run_model(
    answerer: MCQAnswerer,
    items: Sequence[MCQItem],
    progress: ProgressStore,
    *,
    concurrency: int = 4,
    failures: tuple[type[BaseException], ...] = (),
    save_every: int | None = None,
    on_answer: Callable[[int], None] | None = None,
) -> ModelRun:
    """`failures` are the exceptions that mean "this call failed for good" (bounded retries
    already spent): the item is reported as an error and left out of progress, so a rerun
    retries it. Any other exception stops the run after saving what was answered.
    `save_every` defaults to about 1% of the items; `on_answer(n)` reports n new answers."""
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    fingerprint = answerer.fingerprint()
    wanted = {item.id: item.query_sha for item in items}
    done = {r.item_id: r for r in progress.load(answerer.name, fingerprint)
            if wanted.get(r.item_id) == r.query_sha}
    resumed = len(done)
    pending = [item for item in items if item.id not in done]
    size = max(1, answerer.batch_size)
    batches = [pending[i:i + size] for i in range(0, len(pending), size)]
    every = save_every or max(1, len(items) // 100)
    errors: dict[str, str] = {}
    unsaved = 0

    def record(future: Future[list[ModelAnswer]], batch: list[MCQItem]) -> int:
        error = future.exception()
        if error is not None:
            if not isinstance(error, failures):
                raise error
            errors.update({item.id: f"{type(error).__name__}: {error}" for item in batch})
            return 0
        answers = future.result()
        if len(answers) != len(batch):
            raise RuntimeError(f"{answerer.name}: {len(answers)} answers for {len(batch)} items")
        for item, answer in zip(batch, answers, strict=True):
            done[item.id] = ItemResponse.of(item, answer)
        return len(batch)

    def save() -> None:
        order = {item.id: i for i, item in enumerate(items)}
        progress.save(answerer.name, fingerprint, sorted(done.values(), key=lambda r: order[r.item_id]))

    # Only `workers` batches are ever submitted, so a stopped run has nothing queued to cancel
    # and asks no question beyond those already in flight.
    workers = max(1, min(concurrency, answerer.max_workers))
    queue = iter(batches)
    in_flight: dict[Future[list[ModelAnswer]], list[MCQItem]] = {}
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"eval-{answerer.name}") as executor:
        def top_up() -> None:
            while len(in_flight) < workers and (batch := next(queue, None)) is not None:
                in_flight[executor.submit(answerer.answer_batch, batch)] = batch

        try:
            top_up()
            while in_flight:
                finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    added = record(future, in_flight.pop(future))
                    if on_answer is not None and added:
                        on_answer(added)
                    unsaved += added
                if unsaved >= every:
                    save()
                    unsaved = 0
                top_up()
        finally:
            # Stopping: let the calls in flight finish and keep their answers.
            for future in wait(in_flight).done:
                if future.exception() is None:
                    unsaved += record(future, in_flight[future])
            if unsaved:
                save()

    responses = [done[item.id] for item in items if item.id in done]
    return ModelRun(name=answerer.name, responses=responses, errors=errors,
                    resumed=resumed, answered=len(responses) - resumed)
